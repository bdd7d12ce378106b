// RUN: %jit-opt %s --pass-pipeline='builtin.module(func.func(jitrun-codegen-tile))'
