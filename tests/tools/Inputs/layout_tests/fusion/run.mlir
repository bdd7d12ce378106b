// RUN: %jitrun %s --input=2xf32
