// RUN: %jit-opt %s \
// RUN:   --jitrun-codegen-pipeline
