// Writes the model that the AOT test compiles (test/nn_aot/CMakeLists.txt): a small image
// classifier with a symbolic batch and image size: Conv + Relu (fused), MaxPool (a model output
// that later steps also read), three blocks of Conv + Relu of one shape (the library compiles
// one function for the first two; the third has x * sigmoid(x) fused into it), x * sigmoid(x),
// GlobalAveragePool, the exporters' Shape -> Gather -> Unsqueeze -> Concat -> Reshape chain
// (folded), Gemm and Softmax.
#include <cmath>
#include <iostream>

#include "../nn/OnnxModels.h"

using namespace dsl_test;

namespace {

std::vector<float> weights(size_t n, float seed) {
    std::vector<float> w(n);
    for (size_t i = 0; i < n; i++)
        w[i] = 0.5f * std::sin(seed + 0.71f * static_cast<float>(i));
    return w;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::cerr << "usage: nn_aot_write_model OUT.onnx\n";
        return 2;
    }
    onnx::ModelProto m = make_model(17);
    const int F = onnx::TensorProto::FLOAT;
    add_input(m, "x", F, {"N", 3, "H", "W"});
    add_float_initializer(m, "conv_w", {8, 3, 3, 3}, weights(8 * 3 * 3 * 3, 0.3f));
    add_float_initializer(m, "conv_b", {8}, weights(8, 1.7f));
    add_float_initializer(m, "fc_w", {5, 8}, weights(5 * 8, 2.9f));
    add_float_initializer(m, "fc_b", {5}, weights(5, 4.1f));
    add_int64_initializer(m, "zero", {}, {0});
    add_int64_initializer(m, "axes0", {1}, {0});
    add_int64_initializer(m, "minus_one", {1}, {-1});
    auto *conv = add_node(m, "Conv", {"x", "conv_w", "conv_b"}, {"c"}, "conv");
    add_ints_attr(conv, "pads", {1, 1, 1, 1});
    add_node(m, "Relu", {"c"}, {"r"}, "relu");
    auto *pool = add_node(m, "MaxPool", {"r"}, {"pooled"}, "pool");
    add_ints_attr(pool, "kernel_shape", {2, 2});
    add_ints_attr(pool, "strides", {2, 2});
    // Blocks that differ only in the names of their nodes, tensors and weights.
    std::string in = "pooled";
    float seed = 5.3f;
    for (const std::string block : {"block1", "block2", "block3"}) {
        add_float_initializer(m, block + "_w", {8, 8, 3, 3}, weights(8 * 8 * 3 * 3, seed));
        add_float_initializer(m, block + "_b", {8}, weights(8, seed + 1.0f));
        seed += 2.3f;
        auto *c =
            add_node(m, "Conv", {in, block + "_w", block + "_b"}, {block + "_c"}, block + "_conv");
        add_ints_attr(c, "pads", {1, 1, 1, 1});
        add_node(m, "Relu", {block + "_c"}, {block + "_r"}, block + "_relu");
        in = block + "_r";
    }
    add_node(m, "Sigmoid", {in}, {"s"}, "sigmoid");
    add_node(m, "Mul", {in, "s"}, {"swish"}, "swish");
    add_node(m, "GlobalAveragePool", {"swish"}, {"g"}, "gap");
    add_node(m, "Shape", {"g"}, {"g_shape"}, "shape");
    add_node(m, "Gather", {"g_shape", "zero"}, {"batch"}, "gather");
    add_node(m, "Unsqueeze", {"batch", "axes0"}, {"batch1"}, "unsqueeze");
    auto *concat = add_node(m, "Concat", {"batch1", "minus_one"}, {"new_shape"}, "concat");
    add_int_attr(concat, "axis", 0);
    add_node(m, "Reshape", {"g", "new_shape"}, {"flat"}, "reshape");
    auto *gemm = add_node(m, "Gemm", {"flat", "fc_w", "fc_b"}, {"logits"}, "fc");
    add_int_attr(gemm, "transB", 1);
    auto *softmax = add_node(m, "Softmax", {"logits"}, {"probs"}, "softmax");
    add_int_attr(softmax, "axis", -1);
    add_output(m, "probs", F, {"N", 5});
    add_output(m, "pooled", F, {"N", 8, "PH", "PW"});
    save_model(m, argv[1]);
    return 0;
}
