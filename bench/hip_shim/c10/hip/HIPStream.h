// Test-only shim (hip/hip_runtime.h says what for): c10::hip:: / at::hip::getCurrentHIPStream onto the CUDA stream.
#pragma once
#include <c10/cuda/CUDAStream.h>
namespace c10 { namespace hip {
inline c10::cuda::CUDAStream getCurrentHIPStream(c10::DeviceIndex d = -1) { return c10::cuda::getCurrentCUDAStream(d); }
}}
namespace at { namespace hip { using c10::hip::getCurrentHIPStream; }}
