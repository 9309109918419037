#pragma once
/// Post-training quantization of ONNX models (`dsl-onnx quantize`): a float model and sample
/// inputs in, an int8 model in ONNX's QDQ form out, which dsl (nn::Model, whose
/// ModelOptions::fuse_quantized runs its groups as integer operators) and other ONNX runtimes
/// run.
///
///   std::vector<std::map<std::string, Buffer<>>> samples = ...;   // typical inputs
///   nn::QuantizationReport r = nn::quantize_model("det.onnx", samples, "det_int8.onnx");
///
/// Convolutions and matrix products with constant weights are quantized: weights to int8,
/// symmetric, one scale per output channel (per tensor with `per_channel` false); their inputs
/// and results to uint8 with the scale and zero point of the range calibration finds on the
/// samples; a convolution's bias to int32. Everything else stays float, reading the quantized
/// values dequantized.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "dsl/Buffer.h"
#include "dsl/nn/Model.h"

namespace dsl::nn {

/// How calibration turns what an activation held on the samples into its range.
enum class Calibration {
    MinMax,      ///< the extremes seen
    Percentile,  ///< the extremes once `percentile` clips the outliers at each end
    Entropy,     ///< the threshold of least Kullback-Leibler divergence (TensorRT's method)
};

struct QuantizationOptions {
    Calibration calibration = Calibration::MinMax;
    /// For Calibration::Percentile: the share of values (in percent) kept inside the range at
    /// each end.
    double percentile = 99.999;
    /// Weights with one scale per output channel (needs opset 13), or one per tensor.
    bool per_channel = true;
    /// The network's first and last layers (of its Conv, ConvTranspose, MatMul and Gemm
    /// nodes, in order of computation) stay float: they are usually the most sensitive to
    /// precision and the cheapest.
    bool keep_first_and_last = true;
    /// Nodes (by name) that stay float.
    std::set<std::string> keep_float;
    /// An operator stays float when an activation it reads or writes, quantized per tensor,
    /// would leave its median channel fewer levels than this: one channel's large values then
    /// set a scale too coarse for the others (typical of the early layers of networks whose
    /// batch norms are folded into convolutions). 0 quantizes them all.
    double min_channel_levels = 48;
    /// How the float model runs on the samples.
    ModelOptions model;
};

/// What quantize_model did.
struct QuantizationReport {
    /// The quantized operators' nodes, and the quantizable ones that stayed float.
    std::vector<std::string> quantized, kept_float;
    /// Why each node of kept_float stays float.
    std::map<std::string, std::string> reasons;
    /// Each quantized activation's calibrated range.
    std::map<std::string, std::pair<float, float>> ranges;
};

/// Quantizes the model at `path`, calibrated on `samples` (each a full set of the model's
/// inputs), and writes the QDQ model to `output`. CompileErrors name the file and the node;
/// a sample the model cannot run on is a RuntimeError naming the sample.
QuantizationReport quantize_model(const std::string &path,
                                  const std::vector<std::map<std::string, Buffer<>>> &samples,
                                  const std::string &output,
                                  const QuantizationOptions &options = {});

}  // namespace dsl::nn
