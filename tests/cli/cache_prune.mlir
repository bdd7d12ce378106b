// The cache folder stays under --cache-max-bytes: once a compile has added
// to it and it is over the cap, its least recently used entries (oldest
// modification time; a hit renews it) are removed until it is under 90 % of
// the cap; entries unused for 30 days go regardless. Only the cache's own
// files (*.jrk, *.jrp, *.jrw) are ever removed.
//
// RUN: rm -rf %t.p && mkdir %t.p
// RUN: %debian-python %S/Inputs/cache_files.py make %t.p
// 1 MB old.jrk (2 days), 1 MB mid.jrk (1 day), ancient.jrp (40 days),
// ancient.jrw (45 days) and a 3 MB notes.txt (50 days) that is not the
// cache's. A cold compile adds tiny_cnn's entries; the folder is then over
// 2 MB: old.jrk goes (mid.jrk is newer), the ancient ones have expired,
// notes.txt stays.
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.p --cache-max-bytes=2000000 > /dev/null
// RUN: %debian-python %S/Inputs/cache_files.py list %t.p | FileCheck %s --check-prefix=CAP
// CAP: kept: mid.jrk notes.txt; new entries: {{[1-9][0-9]*}}; gone: ancient.jrp ancient.jrw old.jrk
// A hit renews an entry: mid.jrk touched by nothing, tiny_cnn's entries by
// a warm start; a cap of 1 byte then leaves none of the cache's files, and
// the compile that wrote them (aggressive fusion: a new program) still runs.
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.p --fusion=aggressive --cache-max-bytes=1 | FileCheck %s --check-prefix=RUNS
// RUNS: result[0]: 1x10xf32=
// RUN: %debian-python %S/Inputs/cache_files.py list %t.p | FileCheck %s --check-prefix=EMPTY
// EMPTY: kept: notes.txt; new entries: 0; gone: ancient.jrp ancient.jrw mid.jrk old.jrk
