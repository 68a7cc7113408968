#!/usr/bin/env bash
# GPU call 4 of 2026-11-29 (session 9), the budget's last minutes (time-boxed to 150 s): issue 34's
# torch-extension kind on a GPU for the first time (bench/torch_ext_gpu_check.sh: 11 evaluations side
# by side: a CUDA .cu extension and a HIP .hip one through bench/hip_shim, their stubs, at::mul cheats,
# a hip2hip shipped extension as the baseline; three timed under the device trace).
set -uo pipefail
mkdir -p $OUT/torch-ext
CHECK_S=145 bash bench/torch_ext_gpu_check.sh /tmp/te > /tmp/te.txt 2>&1
echo "torch-ext rc=$? at ${SECONDS}s"
grep -E "^(ok |BAD)|as_expected|not_as_expected|Python.h|note:|torch |rror" /tmp/te.txt | cut -c1-400 | tail -40
cp /tmp/te/torch-ext*.json /tmp/te.txt $OUT/torch-ext/ 2>/dev/null
tar czf $OUT/records.tgz -C /tmp te te.txt 2>/dev/null; echo "wall ${SECONDS}s"
