// The CUDA side of the GPU benchmark's peers, loaded at run time with dlopen so that nothing in
// the build needs the CUDA toolkit: the device's peak rates (from the driver's attributes) and
// cuBLAS's single-precision matrix product (libcublas and libcudart of one CUDA major version;
// DSL_LIBCUBLAS and DSL_LIBCUDART name them where the loader's path does not find them).

#pragma once

#include <string>

namespace dsl_bench {

/// Peak rates of CUDA device 0, computed from its attributes: FP32 GFLOP/s (multiprocessors x
/// FP32 lanes per multiprocessor x 2 x clock) and DRAM GB/s (2 x memory clock x bus width).
/// Zero where the driver or an attribute is missing.
struct CudaPeak {
    std::string name;
    double gflops = 0;
    double gbytes_per_s = 0;
};
const CudaPeak &cuda_peak();

/// cuBLAS's C = A x B for n x n floats (FP32 math, no TF32), timed per call up to the device's
/// synchronisation. Empty `why_not` when cuBLAS loaded.
class CublasSgemm {
  public:
    explicit CublasSgemm(int n);
    ~CublasSgemm();
    CublasSgemm(const CublasSgemm &) = delete;
    CublasSgemm &operator=(const CublasSgemm &) = delete;

    const std::string &why_not() const { return why_not_; }
    /// Runs the product once and waits for it; false (and why_not set) on an error.
    bool run();

  private:
    int n_ = 0;
    std::string why_not_;
    void *handle_ = nullptr;
    float *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
};

}  // namespace dsl_bench
