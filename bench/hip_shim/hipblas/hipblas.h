// Test-only shim (hip/hip_runtime.h says what for): the hipBLAS names AKA's NormalAttention_dot uses onto cuBLAS (link -lcublas).
#pragma once
#include <cublas_v2.h>
#define hipblasHandle_t cublasHandle_t
#define hipblasStatus_t cublasStatus_t
#define HIPBLAS_STATUS_SUCCESS CUBLAS_STATUS_SUCCESS
#define hipblasCreate cublasCreate
#define hipblasDestroy cublasDestroy
#define hipblasSetStream cublasSetStream
#define HIPBLAS_OP_N CUBLAS_OP_N
#define HIPBLAS_OP_T CUBLAS_OP_T
#define hipblasSgemm cublasSgemm
#define hipblasSgemmStridedBatched cublasSgemmStridedBatched
