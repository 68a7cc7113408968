#!/bin/bash
# usage: bench/hip_shim/aka_compile_check.sh SRC.hip NAME [nvcc flags]: compile one AKA HIP extension
# source to an object (/tmp/akab/NAME.o) with nvcc through this folder's headers, against the torch
# of $PYTHON (default python3). On a CPU torch add -DC10_CUDA_NO_CMAKE_CONFIGURE_FILE (its wheel lacks
# c10/cuda/impl/cuda_cmake_macros.h). Compiles only: linking needs a CUDA torch (libc10_cuda, libtorch_cuda).
set -e
SHIM=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
T=$($PY -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "include"))')
PYINC=$($PY -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
src=$1; name=$2; shift 2
mkdir -p /tmp/akab
cp "$src" /tmp/akab/$name.cu
nvcc -c /tmp/akab/$name.cu -o /tmp/akab/$name.o -I "$SHIM" -I "$T" -I "$T/torch/csrc/api/include" -I "$PYINC" \
  -DTORCH_EXTENSION_NAME=$name -DTORCH_API_INCLUDE_EXTENSION_H -D_GLIBCXX_USE_CXX11_ABI=1 \
  -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ -D__CUDA_NO_BFLOAT16_CONVERSIONS__ \
  -D__CUDA_NO_HALF2_OPERATORS__ --expt-relaxed-constexpr -std=c++20 -Xcompiler -fPIC -arch=sm_90 \
  -diag-suppress=3189 "$@"
