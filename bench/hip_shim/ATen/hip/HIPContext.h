// Test-only shim (hip/hip_runtime.h says what for): ROCm torch's HIPContext.h onto CUDAContext.h.
#pragma once
#include <ATen/cuda/CUDAContext.h>
#include <c10/hip/HIPStream.h>
