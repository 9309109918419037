// Integer convolutions of any grouping (dsl/nn/Quantize.h: integer_conv_sums): integer_conv
// where it applies, exact float32 sums of 8-bit products otherwise.
#include <algorithm>

#include "dsl/nn/Conv.h"
#include "dsl/nn/Elementwise.h"
#include "dsl/nn/Movement.h"
#include "dsl/nn/Quantize.h"
#include "nn/ops/Quantized.h"

namespace dsl::nn {

namespace {

/// An 8-bit element of dense `b` at `offset` (in elements).
float byte_at(const Buffer<> &b, int64_t offset) {
    const auto *p = static_cast<const uint8_t *>(b.data()) + offset;
    return b.type().is_int() ? static_cast<float>(static_cast<int8_t>(*p)) : static_cast<float>(*p);
}

/// Constant 8-bit weights (M, C, kernel...) less their zero point (none, one, or one per output
/// channel), in float32, computed on the host.
Buffer<> float_weights(const Buffer<> &w, const Buffer<> &zero_point) {
    const Buffer<> dense = w.copy();
    const Buffer<> z = zero_point.defined() ? zero_point.copy() : Buffer<>();
    std::vector<int> sizes;
    for (int d = 0; d < w.dimensions(); d++)
        sizes.push_back(w.extent(d));
    Buffer<> out(Float(32), sizes, "float_weights");
    auto *dst = static_cast<float *>(out.data());
    const int64_t n = dense.number_of_elements();
    const int64_t per_channel = n / std::max(1, w.extent(w.dimensions() - 1));
    for (int64_t i = 0; i < n; i++) {
        const int64_t m = i / per_channel;
        const float zp = z.defined() ? byte_at(z, z.number_of_elements() == 1 ? 0 : m) : 0.0f;
        dst[i] = byte_at(dense, i) - zp;
    }
    return out;
}

}  // namespace

Tensor integer_conv_sums(const Tensor &x, const Tensor &w, const Tensor &xz, const Tensor &wz,
                         const Tensor &bias, const Window &win, int groups) {
    if (integer_conv_applies(x, w, xz, win, groups)) return integer_conv(x, w, xz, wz, bias, win);
    Tensor xs = subtract_zero_point(x, xz, 1), ws = subtract_zero_point(w, wz, 0);
    // Others (depthwise and grouped convolutions): where every sum has fewer than 2^24 / 255^2
    // products of 8-bit differences, float32 sums them exactly, at the float convolution's
    // speed (fused multiply-adds; int32 multiplies are slower), and int32 adds the bias.
    int64_t taps = 1;
    for (int a = 1; a < w.rank(); a++) {
        int64_t extent = 0;
        taps = is_const(w.dim(a), &extent) ? taps * extent : -1;
        if (taps < 0) break;
    }
    if (!is_byte(x.type()) || !is_byte(w.type()) || taps < 0 ||
        taps * 255 * 255 >= (int64_t(1) << 24))
        return conv(xs, ws, bias, win, groups);
    // The weights in float: on the host when they are constants (a layer's). The input in
    // float once per element, computed before the convolution reads it once per tap.
    Tensor wf = cast(ws, Float(32));
    if (w.data().defined() && (!wz.defined() || wz.data().defined()))
        wf = Tensor(float_weights(w.data(), wz.defined() ? wz.data() : Buffer<>()),
                    unique_name("float_weights"));
    Tensor xf = cast(xs, Float(32));
    Tensor float_sums = conv(xf, wf, Tensor(), win, groups);
    const Tensor::Schedule own = float_sums.schedule();
    Func input = xf.func();
    float_sums.set_schedule([own, input](Func out, const Target &target) mutable {
        own(out, target);
        std::vector<Var> a = input.args();
        input.compute_root().vectorize(a[0], target.natural_vector_size(Float(32)));
        Var rows("rows");
        input.fuse(a[1], a[2], rows).parallel(rows);
    });
    Tensor sums = cast(float_sums, Int(32));
    if (!bias.defined()) return sums;
    // The bias along the channel axis: (M) as (M, 1, ..., 1).
    std::vector<int> axes;
    for (int a = 1; a + 1 < x.rank(); a++)
        axes.push_back(a);
    return add(sums, unsqueeze(bias, axes));
}

}  // namespace dsl::nn
