#pragma once
// Matrix products on CUDA go through cuBLAS (gemm_slot: matmul, mm, bmm, addmm,
// baddbmm, einsum's products). float32 computes in float32 unless TF32 is
// allowed, as PyTorch >= 1.12's torch.backends.cuda.matmul.allow_tf32 (off by
// default); float16 and bfloat16 compute in float32; float64 in float64.
namespace ember::cuda {

void set_allow_tf32(bool allow);
bool allow_tf32();

}  // namespace ember::cuda
