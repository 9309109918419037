// The 2-D convolution of 8-bit integers accumulated in int32 (ONNX's ConvInteger, and the sums
// of QLinearConv), written for the CPU's dot-product instructions, as integer_matmul is.
//
// With x' = x as unsigned bytes (an int8 x shifted by +128) and w' = w as signed bytes (a uint8
// w shifted by -128), and the padding read as x's zero point zx' (so that its terms vanish):
//   sum (x - zx)(w - zw) = sum x' w' - zw' S - zx' sum w' + C KH KW zx' zw'
// where S is the sum of x' over the window. The first sum runs on vpdpbusd: x' is packed four
// channels at a time per pixel, padded, its columns split by phase for strides (N x C/4 x H' x
// stride x W'/stride x 4: four channels' bytes side by side, a vector of 16 output columns
// reading 64 consecutive bytes for every tap), and w' (a
// constant) is packed on the host as C/4 x KH x KW x M' x 4, each output channel's four bytes
// one 32-bit broadcast. Tiles of two vectors of output columns by twelve output channels are
// summed in registers, as the float convolution's are.
#include <type_traits>

#include "dsl/InlineReductions.h"
#include "dsl/nn/Quantize.h"
#include "ir/Error.h"
#include "ir/IROperator.h"
#include "nn/ops/Quantized.h"

namespace dsl::nn {

namespace {

constexpr int kChannelTile = 12;

/// w' packed on the host, zero past M and past C, and the sums of its output channels.
struct PackedConvWeights {
    Tensor packed, sums;
};

template <typename T>
PackedConvWeights pack_conv_weights(const Buffer<T> &w) {
    // Buffer dimensions: kx, ky, c, m (innermost first).
    const int kw = w.dim(0).extent(), kh = w.dim(1).extent(), c = w.dim(2).extent(),
              m = w.dim(3).extent();
    const int blocks = (c + 3) / 4,
              padded = (m + 2 * kChannelTile - 1) / (2 * kChannelTile) * (2 * kChannelTile);
    Buffer<int8_t> packed(4, padded, kw, kh, blocks);
    Buffer<int32_t> sums(m);
    packed.fill(0);
    sums.fill(0);
    for (int o = 0; o < m; o++)
        for (int ch = 0; ch < c; ch++)
            for (int y = 0; y < kh; y++)
                for (int x = 0; x < kw; x++) {
                    int v = int(w(w.dim(0).min() + x, w.dim(1).min() + y, w.dim(2).min() + ch,
                                  w.dim(3).min() + o)) -
                            (std::is_unsigned<T>::value ? 128 : 0);
                    packed(ch % 4, o, x, y, ch / 4) = static_cast<int8_t>(v);
                    sums(o) += v;
                }
    return {Tensor(Buffer<>(packed), unique_name("iconv_packed")),
            Tensor(Buffer<>(sums), unique_name("iconv_weight_sums"))};
}

}  // namespace

bool zero_constant(const Tensor &z) {
    if (!z.defined()) return true;
    const Buffer<> &b = z.data();
    if (!b.defined()) return false;
    const auto *p = static_cast<const uint8_t *>(b.data());
    for (size_t i = 0; i < b.size_in_bytes(); i++) {
        if (p[i] != 0) return false;
    }
    return true;
}

bool integer_conv_applies(const Tensor &x, const Tensor &w, const Tensor &x_zero_point,
                          const Window &window, int groups) {
    int64_t one = 0;
    bool x_zero_scalar =
        !x_zero_point.defined() || x_zero_point.rank() == 0 ||
        (x_zero_point.rank() == 1 && is_const(x_zero_point.dim(0), &one) && one == 1);
    bool unit_dilation = true;
    for (int d : window.dilations)
        unit_dilation &= d == 1;
    return x.rank() == 4 && w.rank() == 4 && groups == 1 && is_byte(x.type()) &&
           is_byte(w.type()) && w.data().defined() && x_zero_scalar && unit_dilation;
}

Tensor integer_conv(const Tensor &x, const Tensor &w, const Tensor &x_zero_point,
                    const Tensor &w_zero_point, const Tensor &bias, Window window) {
    user_assert(integer_conv_applies(x, w, x_zero_point, window, 1))
        << "integer_conv of \"" << x.func().name() << "\" by \"" << w.func().name()
        << "\": it takes a 2-D convolution (x N x C x H x W, weights M x C x KH x KW, both uint8 "
           "or int8, the weights a constant), one zero point for x and dilation 1; use conv of "
           "subtract_zero_point for others.";
    const int kh = w.data().dim(1).extent(), kw = w.data().dim(0).extent();
    const int channels = w.data().dim(2).extent(), outputs = w.data().dim(3).extent();
    if (window.strides.empty()) window.strides = {1, 1};
    if (window.pads_begin.empty()) window.pads_begin = {Expr(0), Expr(0)};
    if (window.pads_end.empty()) window.pads_end = {Expr(0), Expr(0)};
    const int sy = window.strides[0], sx = window.strides[1];
    const Expr pt = window.pads_begin[0], pl = window.pads_begin[1];
    const Expr n = x.dim(0), h = x.dim(2), wd = x.dim(3);
    const Expr hp = h + pt + window.pads_end[0], wp = wd + pl + window.pads_end[1];
    const Expr oh = (hp - kh) / sy + 1, ow = (wp - kw) / sx + 1;
    const bool x_signed = x.type().is_int();
    const bool symmetric = w.type().is_int() && zero_constant(w_zero_point);
    const Expr zx = zero_point_at(x_zero_point, Expr(0)) + (x_signed ? 128 : 0);

    // x' padded and packed: (n, channel block, row, column phase, column / stride), four
    // channels' bytes in one 32-bit word (channel 4b + t in byte t). Column ix sits at phase
    // ix % sx, position ix / sx, so that a vector of output columns reads consecutive words for
    // every tap at any stride; a vector of words is built from four dense rows of bytes.
    const int blocks = (channels + 3) / 4;
    const Expr wj = (wp + sx - 1) / sx;
    Tensor packed_x = compute(
        unique_name("iconv_input"), {n, Expr(blocks), hp, Expr(sx), wj}, [&](const Index &i) {
            Expr iy = i[2] - pt, ix = i[4] * sx + i[3] - pl;
            Expr inside = iy >= 0 && iy < h && ix >= 0 && ix < wd;
            Expr word = make_const(UInt(32), 0);
            for (int t = 0; t < 4; t++) {
                Expr c = i[1] * 4 + t;
                Expr v = x({i[0], min(c, channels - 1), clamp(iy, 0, h - 1), clamp(ix, 0, wd - 1)});
                if (x_signed) v = cast<uint8_t>(cast<int16_t>(v) + 128);
                Expr byte =
                    select(c < channels, select(inside, v, cast<uint8_t>(zx)), cast<uint8_t>(0));
                word = word | (cast<uint32_t>(byte) << make_const(UInt(32), 8 * t));
            }
            return word;
        });
    // Byte t of a packed word.
    auto x_byte = [&](const Index &i, const Expr &t) {
        return cast<uint8_t>(packed_x(i) >> (cast<uint32_t>(t) * make_const(UInt(32), 8)));
    };
    PackedConvWeights pw = w.type().is_uint() ? pack_conv_weights(Buffer<uint8_t>(w.data()))
                                              : pack_conv_weights(Buffer<int8_t>(w.data()));

    // The sum of x' over the real channels at each padded position, then over each window.
    Tensor column_sums =
        compute(unique_name("iconv_channel_sums"), {n, hp, Expr(sx), wj}, [&](const Index &i) {
            RDom r(0, 4, 0, blocks, unique_name("iconv_cs"));
            return sum(cast<int32_t>(x_byte({i[0], r.y, i[1], i[2], i[3]}, r.x)));
        });
    Tensor window_sums =
        compute(unique_name("iconv_window_sums"), {n, oh, ow}, [&](const Index &i) {
            RDom r(0, kw, 0, kh, unique_name("iconv_ws"));
            return sum(column_sums({i[0], i[1] * sy + r.y, r.x % sx, i[2] + r.x / sx}));
        });

    Tensor init = compute(unique_name("iconv_acc"), {n, Expr(outputs), oh, ow},
                          [](const Index &) { return Expr(0); });
    Func f = init.func();
    RDom r(std::vector<std::pair<Expr, Expr>>{{0, 4}, {0, kw}, {0, kh}, {0, blocks}},
           unique_name("iconv_k"));
    const Var bx = init.var(3), by = init.var(2), bm = init.var(1), bn = init.var(0);
    f(bx, by, bm, bn) =
        f(bx, by, bm, bn) +
        cast<int32_t>(x_byte({bn, r[3], by * sy + r[2], r[1] % sx, bx + r[1] / sx}, r[0])) *
            cast<int32_t>(pw.packed({r[3], r[2], r[1], bm, r[0]}));

    const int64_t terms = int64_t(channels) * kh * kw;
    Tensor out = compute(unique_name("iconv"), {n, Expr(outputs), oh, ow}, [&](const Index &i) {
        Expr zw = zero_point_at(w_zero_point, i[1]) - (w.type().is_uint() ? 128 : 0);
        // Symmetric int8 weights (zero point 0) need no window sums.
        Expr v = init(i) - (symmetric ? Expr(0) : zw * window_sums({i[0], i[2], i[3]})) -
                 zx * pw.sums({i[1]}) + make_const(Int(32), terms) * zx * zw;
        if (bias.defined()) v = v + cast<int32_t>(bias({i[1]}));
        return v;
    });

    Func px = packed_x.func(), cs = column_sums.func(), ws = window_sums.func();
    out.set_schedule([f, r, px, cs, ws, symmetric](Func y, const Target &target) mutable {
        const int vec = std::max(4, target.natural_vector_size(Int(32)));
        std::vector<Var> pv = px.args(), cv = cs.args(), wv = ws.args(), fv = f.args(),
                         ov = y.args();
        // The packed input a row at a time, its four channels' bytes a vector of 4 inside a
        // vector of columns (a dense store); the sums vectorized along the columns.
        px.compute_root().reorder(pv[0], pv[1], pv[3], pv[2]).vectorize(pv[0], vec).parallel(pv[2]);
        if (!symmetric) {
            cs.compute_root().vectorize(cv[0], vec).parallel(cv[2]);
            ws.compute_root().vectorize(wv[0], vec).parallel(wv[1]);
        }
        // Output tiles: two vectors of columns by twelve channels, rows (and images) in
        // parallel; the accumulation per tile in registers.
        Var xo("xo"), xi("xi"), mo("mo"), mi("mi");
        y.split(ov[0], xo, xi, 2 * vec, TailStrategy::GuardWithIf)
            .split(ov[2], mo, mi, kChannelTile, TailStrategy::GuardWithIf)
            .reorder(xi, mi, xo, mo, ov[1], ov[3])
            .vectorize(xi, vec)
            .unroll(xi)
            .unroll(mi);
        Var rows("rows");
        y.fuse(ov[1], ov[3], rows).parallel(rows);
        f.compute_at(y, xo)
            .bound_extent(fv[0], 2 * vec)
            .bound_extent(fv[2], kChannelTile)
            .vectorize(fv[0], vec)
            .unroll(fv[0])
            .unroll(fv[2]);
        Var co("co"), ci("ci");
        f.update()
            .atomic()
            .split(fv[0], co, ci, vec)
            .reorder(r[0], ci, co, fv[2], r[1], r[2], r[3])
            .vectorize(r[0])
            .vectorize(ci)
            .unroll(co)
            .unroll(fv[2]);
    });
    return out;
}

}  // namespace dsl::nn
