// Convolutions and pooling as reductions over windows, with padding read as zeros (or ignored).
#include "dsl/nn/Conv.h"

#include "dsl/InlineReductions.h"
#include "dsl/nn/Quantize.h"
#include "dsl/nn/Reduce.h"
#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/Simplify.h"
#include "nn/ops/Indexing.h"
#include "nn/ops/JoinedRows.h"
#include "nn/ops/Quantized.h"
#include "nn/ops/RegisterTiles.h"

namespace dsl::nn {

namespace {

/// Fills in defaults (strides and dilations 1, pads 0) for `k` spatial axes and checks sizes.
void complete(Window &w, size_t k, const char *op) {
    auto fill = [&](std::vector<int> &v, const char *what) {
        if (v.empty()) v.assign(k, 1);
        user_assert(v.size() == k)
            << op << ": " << what << " has " << v.size() << " values for " << k << " spatial axes.";
    };
    fill(w.strides, "strides");
    fill(w.dilations, "dilations");
    if (w.pads_begin.empty()) w.pads_begin.assign(k, Expr(0));
    if (w.pads_end.empty()) w.pads_end.assign(k, Expr(0));
    user_assert(w.pads_begin.size() == k && w.pads_end.size() == k)
        << op << ": pads must have two values per spatial axis.";
    user_assert(w.kernel.size() == k)
        << op << ": the window has " << w.kernel.size() << " extents for " << k << " spatial axes.";
    for (Expr &e : w.pads_begin)
        e = cast(Int(32), e);
    for (Expr &e : w.pads_end)
        e = cast(Int(32), e);
}

/// complete() for a convolution's window, whose extents, where not given, are the weights'
/// (which must be known when compiling).
void complete_from_weights(Window &w, const Tensor &weights, size_t k, const char *op) {
    if (w.kernel.empty()) {
        for (size_t i = 0; i < k; i++) {
            int64_t v = 0;
            user_assert(is_const(weights.dim(static_cast<int>(2 + i)), &v))
                << op << ": the kernel extents of \"" << weights.func().name()
                << "\" must be known when compiling.";
            w.kernel.push_back(static_cast<int>(v));
        }
    }
    complete(w, k, op);
}

/// The number of window positions along one axis: floor (or ceil) of the span over the stride,
/// plus one.
Expr windows(const Expr &in, const Window &w, size_t i, bool ceil_mode) {
    Expr span = in + w.pads_begin[i] + w.pads_end[i] - ((w.kernel[i] - 1) * w.dilations[i] + 1);
    const int s = w.strides[i];
    if (!ceil_mode) return span / s + 1;
    Expr out = (span + (s - 1)) / s + 1;
    // The last window must start inside the input or its leading padding.
    return select((out - 1) * s >= in + w.pads_begin[i], out - 1, out);
}

/// An RDom over the window (innermost spatial axis first), with the `outer` ranges as its
/// outermost dimensions (a convolution's input channels).
RDom window_domain(const Window &w, const std::vector<std::pair<Expr, Expr>> &outer,
                   const std::string &name) {
    std::vector<std::pair<Expr, Expr>> ranges;
    for (size_t i = w.kernel.size(); i-- > 0;)
        ranges.push_back({0, w.kernel[i]});
    ranges.insert(ranges.end(), outer.begin(), outer.end());
    return RDom(ranges, unique_name(name));
}

/// Spatial axis i's window variable (RDom dimension k-1-i).
Expr tap(const RDom &r, size_t k, size_t i) {
    return r[static_cast<int>(k - 1 - i)];
}

/// The register tile of a convolution's accumulation `f` (over `r`: the window's taps, then
/// the input channels), computed at the loop `loop` of `consumer`: `vw` vectors of `vec` points
/// along f's dimension 0 by `tm` channels along its dimension `channel`, summed over the
/// channels and the taps (unrolled for windows up to 5x5, `taps` of them: straight-line
/// multiply-adds per input channel).
void register_tile(Func f, const RDom &r, Func consumer, const Var &loop, size_t channel, int vw,
                   int vec, int tm, int64_t taps) {
    std::vector<Var> fv = f.args();
    f.compute_at(consumer, loop)
        .bound_extent(fv[0], vw * vec)
        .bound_extent(fv[channel], tm)
        .vectorize(fv[0], vec)
        .unroll(fv[0])
        .unroll(fv[channel]);
    std::vector<VarOrRVar> update_order{fv[0], fv[channel]};
    for (int d = 0; d < r.dimensions(); d++)
        update_order.push_back(r[d]);
    f.update().reorder(update_order).vectorize(fv[0], vec).unroll(fv[0]).unroll(fv[channel]);
    if (taps <= 25) {
        for (int d = 0; d + 1 < r.dimensions(); d++)
            f.update().unroll(r[d]);
    }
}

/// The schedule of a convolution `out` whose rows are narrower than a vector (a squeeze-and-
/// excitation layer's convolutions of one point): vectors of output channels, each lane
/// summing its own channel in the accumulation `f` (the weights gathered across channels),
/// blocks of channels and images in parallel.
void channel_vectors(Func out, Func f, const RDom &r, int rank, int vec) {
    std::vector<Var> ov = out.args(), fv = f.args();
    const size_t last = static_cast<size_t>(rank - 1);
    Var mo("mo"), mi("mi"), mn("mn");
    out.split(ov[last - 1], mo, mi, vec, TailStrategy::GuardWithIf);
    std::vector<VarOrRVar> order{mi};
    for (size_t i = 0; i + 1 < last; i++)
        order.push_back(ov[i]);
    order.push_back(mo);
    order.push_back(ov[last]);
    out.reorder(order).vectorize(mi);
    out.fuse(mo, ov[last], mn).parallel(mn);
    f.compute_at(out, mn).bound_extent(fv[last - 1], vec).vectorize(fv[last - 1]);
    std::vector<VarOrRVar> update_order{fv[last - 1]};
    for (size_t i = 0; i + 1 < last; i++)
        update_order.push_back(fv[i]);
    for (int d = 0; d < r.dimensions(); d++)
        update_order.push_back(r[d]);
    f.update().reorder(update_order).vectorize(fv[last - 1]);
}

/// The schedule of a convolution's accumulation `f` (over `r`: the `taps` of the window, then
/// the input channels) for an output (N, M, spatial...) of `m` channels: register tiles of `vw`
/// vectors along the innermost spatial axis by `tm` output channels, summed over the channels
/// and the taps (unrolled: per tap, one vector load of the input per vector and one broadcast
/// weight per channel, folded into the multiply-add); tiles of rows and images in parallel.
/// The accumulation clamps the channel where it indexes weights, so the last tile of channels
/// may run past the end. Measured on AVX-512 (one thread): a dense convolution does best with
/// 2 vectors by 12 channels (24 accumulators, 14 loads per 24 multiply-adds where 1 vector by
/// 24 channels needs 25; 54 -> 100 GFLOP/s for a 1x1 of 384 -> 192 channels at 40x40, 100 ->
/// 160 for a 3x3 of 96 -> 24 at 160x160); a `depthwise` one (no sum over channels) with 1
/// vector by 8 channels (2 by 12: the PP-OCRv4 detector 10% slower). Rows of a known `width`
/// narrower than a vector have vectors of channels instead (channel_vectors).
Tensor::Schedule channel_tiles(Func f, RDom r, int rank, Type acc, const Expr &m, int64_t taps,
                               bool depthwise, const Expr &width) {
    int64_t m_const = 0, width_const = 0;
    const bool m_known = is_const(m, &m_const);
    const bool width_known = is_const(width, &width_const);
    return [f, r, rank, acc, m_known, m_const, taps, depthwise, width_known, width_const](
               Func out, const Target &target) mutable {
        const int vec = std::max(1, target.natural_vector_size(acc));
        if (width_known && width_const < vec) {
            channel_vectors(out, f, r, rank, vec);
            return;
        }
        int vw = 2, want_tm = 12;
        if (depthwise) {
            vw = 1;
            want_tm = 8;
        }
        want_tm = tile_channels(target, vw, want_tm);
        const int tm = m_known ? static_cast<int>(std::min<int64_t>(want_tm, m_const)) : want_tm;
        std::vector<Var> ov = out.args();
        Var wo("wo"), wi("wi"), mo("mo"), mi("mi"), mn("mn");
        const int last = rank - 1;
        out.split(ov[0], wo, wi, vw * vec, TailStrategy::GuardWithIf)
            .split(ov[static_cast<size_t>(last - 1)], mo, mi, tm, TailStrategy::GuardWithIf);
        // With two spatial axes or more, the blocks of channels run inside each row, so that
        // the rows of input a row of output reads stay in cache across the blocks; rows (and
        // images) in parallel. With one, blocks of channels (and images) in parallel.
        std::vector<VarOrRVar> order{wi, mi, wo};
        const bool rows = last >= 3;
        if (rows) order.push_back(mo);
        for (int i = 1; i < last - 1; i++)
            order.push_back(ov[static_cast<size_t>(i)]);
        if (!rows) order.push_back(mo);
        order.push_back(ov[static_cast<size_t>(last)]);
        out.reorder(order).vectorize(wi, vec).unroll(wi).unroll(mi);
        out.fuse(rows ? ov[static_cast<size_t>(last - 2)] : mo, ov[static_cast<size_t>(last)], mn)
            .parallel(mn);
        register_tile(f, r, out, wo, static_cast<size_t>(last - 1), vw, vec, tm, taps);
    };
}

/// The number of taps of a window of `extents`.
int64_t taps_of(const std::vector<int> &extents) {
    int64_t n = 1;
    for (int e : extents)
        n *= e;
    return n;
}

}  // namespace

void resolve_pads(Window &w, const std::vector<Expr> &in, AutoPad mode) {
    const size_t k = in.size();
    if (w.strides.empty()) w.strides.assign(k, 1);
    if (w.dilations.empty()) w.dilations.assign(k, 1);
    if (mode == AutoPad::NotSet) return;
    w.pads_begin.assign(k, Expr(0));
    w.pads_end.assign(k, Expr(0));
    if (mode == AutoPad::Valid) return;
    for (size_t i = 0; i < k; i++) {
        const int s = w.strides[i];
        Expr out = (in[i] + (s - 1)) / s;
        Expr total = max((out - 1) * s + (w.kernel[i] - 1) * w.dilations[i] + 1 - in[i], 0);
        Expr small = total / 2, large = total - total / 2;
        w.pads_begin[i] = mode == AutoPad::SameUpper ? small : large;
        w.pads_end[i] = mode == AutoPad::SameUpper ? large : small;
    }
}

namespace {

/// A convolution's accumulation `f` over `r` (the window's taps, then the input channels of a
/// group), and its result in x's type.
struct Accumulation {
    Func f;
    RDom r;
    Tensor result;
};

/// The accumulation of conv() (arguments checked, `w` completed for x's spatial axes): started
/// with the bias, then summed over (input channel of the group, kernel taps). The output channel
/// is clamped where it indexes the weights, so that a tile of channels may run past the last one
/// (its extra results are never stored), and so is each input position, read as zero outside
/// (a likely condition: tiles inside the input have neither test nor clamp).
Accumulation accumulate(const Tensor &x, const Tensor &weights, const Tensor &bias, const Window &w,
                        int groups) {
    const size_t k = static_cast<size_t>(x.rank() - 2);
    const Expr cg = weights.dim(1), m = weights.dim(0);
    const Expr m_per_group = m / groups;
    Shape s{x.dim(0), m};
    for (size_t i = 0; i < k; i++)
        s.push_back(windows(x.dim(static_cast<int>(2 + i)), w, i, false));
    const Type acc = accumulator_type(x.type());
    Tensor init = compute(unique_name("conv_acc"), s, [&](const Index &o) {
        return bias.defined() ? cast(acc, bias({clamp(o[1], 0, m - 1)})) : make_const(acc, 0);
    });
    Func f = init.func();
    RDom r = window_domain(w, {{0, cg}}, "conv_r");
    Index o;
    for (int a = 0; a < init.rank(); a++)
        o.push_back(init.var(a));
    Expr mc = clamp(o[1], 0, m - 1);
    Expr c = r[static_cast<int>(k)];
    Expr inside = const_true();
    Index xi{o[0], (mc / m_per_group) * cg + c}, wk{mc, c};
    for (size_t i = 0; i < k; i++) {
        Expr in = x.dim(static_cast<int>(2 + i));
        Expr pos = o[2 + i] * w.strides[i] - w.pads_begin[i] + tap(r, k, i) * w.dilations[i];
        inside = inside && pos >= 0 && pos < in;
        xi.push_back(clamp(pos, 0, in - 1));
        wk.push_back(tap(r, k, i));
    }
    std::vector<Expr> args(o.rbegin(), o.rend());
    f(args) = f(args) +
              select(likely(inside), cast(acc, x(xi)), make_const(acc, 0)) * cast(acc, weights(wk));
    Tensor result =
        compute(unique_name("conv"), s, [&](const Index &i) { return cast(x.type(), init(i)); });
    return {f, r, result};
}

/// conv() of a pointwise convolution over 2-D maps with the rows joined: a convolution over one
/// spatial axis of H * W points, whose point p reads x at row p / W, column p % W (the same
/// address as p, x being dense: the simplifier sees it once the row is known not empty).
Tensor pointwise_rows_joined(const Tensor &x, const Tensor &weights, const Tensor &bias) {
    const Expr height = x.dim(2), width = x.dim(3);
    const Expr row = joined_row(width);
    Tensor points = compute(unique_name("conv_points"), {x.dim(0), x.dim(1), height * width},
                            [&](const Index &i) {
                                return x({i[0], i[1], i[2] / row, i[2] % row});
                            });
    Tensor w1 = compute(unique_name("conv_weights"), {weights.dim(0), weights.dim(1), 1},
                        [&](const Index &i) {
                            return weights({i[0], i[1], 0, 0});
                        });
    Window w;
    w.kernel = {1};
    complete(w, 1, "conv");
    Accumulation a = accumulate(points, w1, bias, w, 1);
    const Tensor joined = a.result;
    Tensor result = compute(unique_name("conv"), {x.dim(0), weights.dim(0), height, width},
                            [&](const Index &o) {
                                return joined({o[0], o[1], o[2] * row + o[3]});
                            });
    int64_t m = 0;
    const int tm = is_const(weights.dim(0), &m) ? static_cast<int>(std::min<int64_t>(12, m)) : 12;
    Func f = a.f;
    RDom r = a.r;
    result.set_schedule(
        joined_row_tiles(width, height, accumulator_type(x.type()), tm, true,
                         [f, r](Func consumer, const Var &loop, int vw, int vec, int tile_m) {
                             register_tile(f, r, consumer, loop, 1, vw, vec, tile_m, 1);
                         }));
    return result;
}

}  // namespace

Tensor conv(const Tensor &x, const Tensor &weights, const Tensor &bias, Window w, int groups) {
    user_assert(x.rank() >= 3 && weights.rank() == x.rank())
        << "conv of \"" << x.func().name() << "\" (rank " << x.rank() << ") with weights \""
        << weights.func().name() << "\" (rank " << weights.rank()
        << "): both need (N, C, spatial...) and (M, C/group, kernel...) layouts of one rank.";
    user_assert(x.type() == weights.type())
        << "conv: \"" << x.func().name() << "\" and its weights must have one type.";
    const size_t k = static_cast<size_t>(x.rank() - 2);
    complete_from_weights(w, weights, k, "conv");
    const Expr cg = weights.dim(1), m = weights.dim(0);
    int64_t c_in = 0, c_per_group = 0;
    if (is_const(x.dim(1), &c_in) && is_const(cg, &c_per_group)) {
        user_assert(c_in == c_per_group * groups)
            << "conv: \"" << x.func().name() << "\" has " << c_in << " channels but the weights \""
            << weights.func().name() << "\" take " << c_per_group << " per group for " << groups
            << " groups.";
    }
    if (rows_joinable(x, w, groups)) return pointwise_rows_joined(x, weights, bias);
    Accumulation a = accumulate(x, weights, bias, w, groups);
    Tensor result = a.result;
    result.set_schedule(channel_tiles(a.f, a.r, x.rank(), accumulator_type(x.type()), m,
                                      taps_of(w.kernel), is_const_one(cg) && groups > 1,
                                      result.dim(-1)));
    return result;
}

Tensor quantized_conv(const Tensor &x, const Tensor &weights, const Tensor &bias, Window w,
                      const Requantization &q, int groups) {
    user_assert(x.rank() == 4 && weights.rank() == 4)
        << "quantized_conv of \"" << x.func().name() << "\": 2-D convolutions only, x (N, C, H, "
        << "W) and weights (M, C, KH, KW); got ranks " << x.rank() << " and " << weights.rank()
        << ".";
    user_assert(x.type() == Int(8) && weights.type() == Int(8))
        << "quantized_conv of \"" << x.func().name() << "\": x and the weights \""
        << weights.func().name() << "\" must be int8 (they are " << x.type() << " and "
        << weights.type() << ").";
    user_assert(!bias.defined() || bias.type() == Int(32))
        << "quantized_conv: the bias \"" << bias.func().name() << "\" must be int32.";
    user_assert(q.multiplier.defined() && q.shift.defined())
        << "quantized_conv of \"" << x.func().name()
        << "\": the requantization needs a multiplier and a shift per output channel.";
    check_requantized_type(q, "quantized_conv of \"" + x.func().name() + "\"");
    if (w.kernel.empty()) {
        for (int i = 0; i < 2; i++) {
            int64_t v = 0;
            user_assert(is_const(weights.dim(2 + i), &v))
                << "quantized_conv: the kernel extents of \"" << weights.func().name()
                << "\" must be known when compiling.";
            w.kernel.push_back(static_cast<int>(v));
        }
    }
    complete(w, 2, "quantized_conv");
    const Expr m = weights.dim(0), channels = weights.dim(1);
    // Depthwise: one input channel per group, and one output channel per input channel.
    const bool depthwise = groups > 1;
    if (depthwise) {
        int64_t c_in = 0, c_per_group = 0, c_out = 0;
        user_assert(is_const(x.dim(1), &c_in) && is_const(channels, &c_per_group) &&
                    is_const(m, &c_out) && c_per_group == 1 && c_in == groups && c_out == groups)
            << "quantized_conv of \"" << x.func().name() << "\": groups " << groups
            << " must be 1 or the input's channel count, known when compiling, with one weight "
               "channel per group and as many output channels (a depthwise convolution).";
    }
    // The input padded with its zero point, a Func of its own (computed before the sum, so
    // that the sum reads it at affine coordinates).
    Shape padded_shape{x.dim(0), x.dim(1), x.dim(2) + w.pads_begin[0] + w.pads_end[0],
                       x.dim(3) + w.pads_begin[1] + w.pads_end[1]};
    Tensor padded = compute(unique_name("qconv_padded"), padded_shape, [&](const Index &i) {
        Expr h = i[2] - w.pads_begin[0], v = i[3] - w.pads_begin[1];
        Expr inside = h >= 0 && h < x.dim(2) && v >= 0 && v < x.dim(3);
        Expr value = x({i[0], i[1], clamp(h, 0, x.dim(2) - 1), clamp(v, 0, x.dim(3) - 1)});
        return select(inside, value, cast<int8_t>(q.input_zero_point));
    });
    // sum (x - z) w = sum x w - z sum w: the zero point's part goes into the starting value.
    Tensor weight_sums = compute(unique_name("qconv_weight_sums"), {m}, [&](const Index &i) {
        RDom r({{0, w.kernel[1]}, {0, w.kernel[0]}, {0, channels}}, unique_name("qconv_ws"));
        return sum(cast<int32_t>(weights({i[0], r.z, r.y, r.x})));
    });
    Shape s{x.dim(0), m, windows(x.dim(2), w, 0, false), windows(x.dim(3), w, 1, false)};
    Tensor acc = compute(unique_name("qconv_acc"), s, [&](const Index &o) {
        Expr start = bias.defined() ? bias({o[1]}) : Expr(0);
        return start - q.input_zero_point * weight_sums({o[1]});
    });
    Func f = acc.func();
    RDom r =
        depthwise ? window_domain(w, {}, "qconv_r") : window_domain(w, {{0, channels}}, "qconv_r");
    Index o;
    for (int a = 0; a < 4; a++)
        o.push_back(acc.var(a));
    Index xi{o[0], depthwise ? Expr(o[1]) : r[2]}, wk{o[1], depthwise ? Expr(0) : r[2]};
    for (size_t i = 0; i < 2; i++) {
        xi.push_back(o[2 + i] * w.strides[i] + tap(r, 2, i) * w.dilations[i]);
        wk.push_back(tap(r, 2, i));
    }
    std::vector<Expr> args(o.rbegin(), o.rend());
    f(args) = f(args) + cast<int32_t>(padded(xi)) * cast<int32_t>(weights(wk));
    // The requantization, a second update of the sum (the NPU runs it on its ALU), then int8.
    f(args) = clamp(q.output_zero_point + multiply_by_quantized_multiplier(
                                              f(args), q.multiplier({o[1]}), q.shift({o[1]})),
                    q.min, q.max);
    Tensor result =
        compute(unique_name("qconv"), s, [&](const Index &i) { return cast(q.type, acc(i)); });
    result.set_schedule(quantized_schedule(f, {padded.func(), weight_sums.func()}, acc.var(3)));
    return result;
}

namespace {

/// ConvTranspose without dilation, as one convolution per output phase: output position o
/// along an axis of stride s is s * Q + p, and the taps that reach it are t = (p + pad) % s,
/// then every s-th one, reading input position Q + (p + pad) / s - j for the j-th. A Func of
/// phases P(Q..., m, n, p...) accumulates those (no tap is wasted, and its loads are
/// contiguous along Q, scheduled as a convolution's channel tiles); the output interleaves the
/// phases: out(o) = P(o / s, o % s).
Tensor conv_transpose_by_phases(const Tensor &x, const Tensor &weights, const Tensor &bias,
                                const Window &w, int groups, const Shape &s) {
    const size_t k = w.kernel.size();
    const int rank = x.rank();
    const Type acc = accumulator_type(x.type());
    const Expr c_per_group = x.dim(1) / groups, m_per_group = weights.dim(1);
    const Expr m = s[1];
    // P's arguments, innermost first: Q (spatial, innermost first), m, n, then the phases.
    std::vector<Var> q_vars, p_vars;
    for (size_t i = 0; i < k; i++) {
        q_vars.push_back(Var(unique_name("q")));
        p_vars.push_back(Var(unique_name("phase")));
    }
    Var mv(unique_name("m")), nv(unique_name("n"));
    // Numpy spatial axis i is q_vars[k - 1 - i].
    std::vector<Expr> args;
    for (size_t i = 0; i < k; i++)
        args.push_back(q_vars[i]);
    args.push_back(mv);
    args.push_back(nv);
    for (size_t i = 0; i < k; i++)
        args.push_back(p_vars[i]);
    std::vector<std::pair<Expr, Expr>> ranges;
    for (size_t i = k; i-- > 0;)
        ranges.push_back({0, (w.kernel[i] + w.strides[i] - 1) / w.strides[i]});
    ranges.push_back({0, c_per_group});
    RDom r(ranges, unique_name("conv_transpose_r"));
    Expr mc = clamp(Expr(mv), 0, m - 1);
    Expr c = (mc / m_per_group) * c_per_group + r[static_cast<int>(k)];
    Expr valid = const_true();
    Index xi{nv, c}, wk{c, mc % m_per_group};
    for (size_t i = 0; i < k; i++) {
        const int st = w.strides[i];
        Expr Q = q_vars[k - 1 - i], ph = p_vars[k - 1 - i];
        Expr j = r[static_cast<int>(k - 1 - i)];
        Expr shifted = ph + w.pads_begin[i];
        Expr t = shifted % st + j * st;
        Expr q = Q + shifted / st - j;
        Expr in = x.dim(static_cast<int>(2 + i));
        valid = valid && t < w.kernel[i] && q >= 0 && q < in;
        xi.push_back(clamp(q, 0, in - 1));
        wk.push_back(clamp(t, 0, w.kernel[i] - 1));
    }
    Func f(unique_name("conv_transpose_acc"));
    std::vector<Var> vars(q_vars);
    vars.push_back(mv);
    vars.push_back(nv);
    vars.insert(vars.end(), p_vars.begin(), p_vars.end());
    f(vars) = bias.defined() ? cast(acc, bias({mc})) : make_const(acc, 0);
    f(args) =
        f(args) + select(valid, cast(acc, x(xi)), make_const(acc, 0)) * cast(acc, weights(wk));
    Func phases(unique_name("conv_transpose_phases"));
    phases(vars) = f(vars);
    Tensor result = compute(unique_name("conv_transpose"), s, [&](const Index &o) {
        std::vector<Expr> a;
        for (size_t i = k; i-- > 0;)
            a.push_back(o[2 + i] / w.strides[i]);
        a.push_back(o[1]);
        a.push_back(o[0]);
        for (size_t i = k; i-- > 0;)
            a.push_back(o[2 + i] % w.strides[i]);
        return cast(x.type(), phases(a));
    });
    std::vector<int> phase_taps;
    for (size_t i = 0; i < k; i++)
        phase_taps.push_back((w.kernel[i] + w.strides[i] - 1) / w.strides[i]);
    Tensor::Schedule tiles = channel_tiles(f, r, rank, acc, m, taps_of(phase_taps), false, Expr());
    result.set_schedule([tiles, phases, rank, acc](Func out, const Target &target) mutable {
        phases.compute_root();
        tiles(phases, target);
        // The interleaving: vectors along the innermost axis, rows (and channels, images) in
        // parallel.
        const int vec = std::max(1, target.natural_vector_size(acc));
        std::vector<Var> ov = out.args();
        Var xo("xo"), xv("xv");
        out.split(ov[0], xo, xv, vec, TailStrategy::GuardWithIf).vectorize(xv);
        Var outer = ov[static_cast<size_t>(rank - 1)];
        for (int a = rank - 2; a >= 1; a--) {
            Var fused(unique_name("rows"));
            out.fuse(ov[static_cast<size_t>(a)], outer, fused);
            outer = fused;
        }
        out.parallel(outer);
    });
    return result;
}

}  // namespace

Tensor conv_transpose(const Tensor &x, const Tensor &weights, const Tensor &bias, Window w,
                      int groups, const std::vector<int> &output_padding) {
    user_assert(x.rank() >= 3 && weights.rank() == x.rank())
        << "conv_transpose of \"" << x.func().name() << "\" with weights \""
        << weights.func().name() << "\": (N, C, spatial...) and (C, M/group, kernel...) layouts "
        << "of one rank are needed.";
    const size_t k = static_cast<size_t>(x.rank() - 2);
    complete_from_weights(w, weights, k, "conv_transpose");
    const Expr c_per_group = x.dim(1) / groups, m_per_group = weights.dim(1);
    // Simplified: a constant count of channels sizes the register tiles (channel_tiles).
    Shape s{x.dim(0), simplify(m_per_group * groups)};
    for (size_t i = 0; i < k; i++) {
        int extra = i < output_padding.size() ? output_padding[i] : 0;
        s.push_back(w.strides[i] * (x.dim(static_cast<int>(2 + i)) - 1) + extra +
                    (w.kernel[i] - 1) * w.dilations[i] + 1 - w.pads_begin[i] - w.pads_end[i]);
    }
    const Type acc = accumulator_type(x.type());
    const Expr m = s[1];
    bool dilated = false;
    for (int d : w.dilations)
        dilated |= d != 1;
    if (!dilated) return conv_transpose_by_phases(x, weights, bias, w, groups, s);
    // The accumulation as conv's: bias, then a sum over (input channel of the group, taps) of
    // the input points each output point receives.
    Tensor init = compute(unique_name("conv_transpose_acc"), s, [&](const Index &o) {
        return bias.defined() ? cast(acc, bias({clamp(o[1], 0, m - 1)})) : make_const(acc, 0);
    });
    Func f = init.func();
    RDom r = window_domain(w, {{0, c_per_group}}, "conv_transpose_r");
    Index o;
    for (int a = 0; a < init.rank(); a++)
        o.push_back(init.var(a));
    Expr mc = clamp(o[1], 0, m - 1);
    Expr c = (mc / m_per_group) * c_per_group + r[static_cast<int>(k)];
    Expr valid = const_true();
    Index xi{o[0], c}, wk{c, mc % m_per_group};
    for (size_t i = 0; i < k; i++) {
        Expr in = x.dim(static_cast<int>(2 + i));
        // The input point q with q * stride + tap * dilation = o + pad_begin.
        Expr num = o[2 + i] + w.pads_begin[i] - tap(r, k, i) * w.dilations[i];
        Expr q = num / w.strides[i];
        valid = valid && num >= 0 && num % w.strides[i] == 0 && q < in;
        xi.push_back(clamp(q, 0, in - 1));
        wk.push_back(tap(r, k, i));
    }
    std::vector<Expr> args(o.rbegin(), o.rend());
    f(args) =
        f(args) + select(valid, cast(acc, x(xi)), make_const(acc, 0)) * cast(acc, weights(wk));
    Tensor result = compute(unique_name("conv_transpose"), s,
                            [&](const Index &i) { return cast(x.type(), init(i)); });
    result.set_schedule(
        channel_tiles(f, r, x.rank(), acc, m, taps_of(w.kernel), false, result.dim(-1)));
    return result;
}

namespace {

/// The output shape of a pooling and, for an output index, the input position of each tap.
Shape pooled_shape(const Tensor &x, const Window &w, bool ceil_mode) {
    const size_t k = static_cast<size_t>(x.rank() - 2);
    Shape s{x.dim(0), x.dim(1)};
    for (size_t i = 0; i < k; i++)
        s.push_back(windows(x.dim(static_cast<int>(2 + i)), w, i, ceil_mode));
    return s;
}

/// Where one tap of a pooling window reads: for output point `o` and the tap `taps[i]` along
/// each spatial axis i, the input index (clamped into the input), whether it lies inside the
/// input, and whether inside the input and its trailing padding.
struct PoolTap {
    Index index;
    Expr inside, in_padded;
};
PoolTap pool_tap(const Tensor &x, const Index &o, const Window &w, const std::vector<Expr> &taps) {
    PoolTap t{{o[0], o[1]}, const_true(), const_true()};
    for (size_t i = 0; i < taps.size(); i++) {
        Expr in = x.dim(static_cast<int>(2 + i));
        Expr pos = o[2 + i] * w.strides[i] - w.pads_begin[i] + taps[i] * w.dilations[i];
        t.inside = t.inside && pos >= 0 && pos < in;
        t.in_padded = t.in_padded && pos < in + w.pads_end[i];
        t.index.push_back(clamp(pos, 0, in - 1));
    }
    return t;
}

/// The taps of the window `r` along each spatial axis (of `k`), outermost first.
std::vector<Expr> window_taps(const RDom &r, size_t k) {
    std::vector<Expr> taps;
    for (size_t i = 0; i < k; i++)
        taps.push_back(tap(r, k, i));
    return taps;
}

/// Windows of at most this many taps are pooled as one expression per output point (each tap
/// a term), so that the output's vectors cover them and the edges are a likely condition.
constexpr int64_t kMaxUnrolledTaps = 32;

/// Max or average pooling of output point `o` with every tap of the window written out: a
/// tap outside the input is a likely condition (the loops over the output have a steady
/// state where none is), and so is its part of the average's count (a constant there).
Expr unrolled_pool(const Tensor &x, const Index &o, PoolKind kind, const Window &w,
                   bool count_include_pad, Type acc) {
    const size_t k = static_cast<size_t>(x.rank() - 2);
    Expr total, count;
    std::vector<int> t(k, 0);
    for (;;) {
        const PoolTap p = pool_tap(x, o, w, std::vector<Expr>(t.begin(), t.end()));
        Expr v = cast(acc, x(p.index));
        if (kind == PoolKind::Max) {
            Expr term = select(likely(p.inside), v, acc.min());
            total = total.defined() ? max(total, term) : term;
        } else {
            Expr term = select(likely(p.inside), v, make_const(acc, 0));
            Expr one = select(likely(count_include_pad ? p.in_padded : p.inside),
                              make_const(acc, 1), make_const(acc, 0));
            total = total.defined() ? total + term : term;
            count = count.defined() ? count + one : one;
        }
        size_t i = k;
        while (i > 0 && ++t[i - 1] == w.kernel[i - 1])
            t[--i] = 0;
        if (i == 0) break;
    }
    if (kind == PoolKind::Max) return cast(x.type(), total);
    return cast(x.type(), total / max(count, make_const(acc, 1)));
}

}  // namespace

Tensor pool(const Tensor &x, PoolKind kind, Window w, bool ceil_mode, bool count_include_pad,
            int p) {
    user_assert(x.rank() >= 3) << "pool of \"" << x.func().name()
                               << "\", which needs (N, C, spatial...) axes.";
    const size_t k = static_cast<size_t>(x.rank() - 2);
    complete(w, k, "pool");
    Shape s = pooled_shape(x, w, ceil_mode);
    const Type t = x.type(), acc = accumulator_type(t);
    if (kind != PoolKind::Lp && taps_of(w.kernel) <= kMaxUnrolledTaps) {
        return compute(unique_name("pool"), s, [&](const Index &o) {
            return unrolled_pool(x, o, kind, w, count_include_pad, acc);
        });
    }
    return compute(unique_name("pool"), s, [&](const Index &o) {
        RDom r = window_domain(w, {}, "pool_r");
        const PoolTap tap_at = pool_tap(x, o, w, window_taps(r, k));
        const Expr &inside = tap_at.inside, &in_padded = tap_at.in_padded;
        Expr v = cast(acc, x(tap_at.index));
        switch (kind) {
            case PoolKind::Max:
                return cast(t, maximum(select(inside, v, acc.min())));
            case PoolKind::Average: {
                Expr total = sum(select(inside, v, make_const(acc, 0)));
                Expr count = sum(select(count_include_pad ? in_padded : inside, 1, 0));
                return cast(t, total / cast(acc, max(count, 1)));
            }
            case PoolKind::Lp: {
                Expr a = dsl::abs(v);
                Expr powered = p == 1 ? a : p == 2 ? a * a : dsl::pow(a, make_const(acc, p));
                Expr total = sum(select(inside, powered, make_const(acc, 0)));
                Expr root = p == 1   ? total
                            : p == 2 ? dsl::sqrt(total)
                                     : dsl::pow(total, make_const(acc, 1.0 / p));
                return cast(t, root);
            }
        }
        return Expr();
    });
}

Tensor max_pool_indices(const Tensor &x, Window w, bool ceil_mode, bool column_major) {
    const size_t k = static_cast<size_t>(x.rank() - 2);
    complete(w, k, "max_pool_indices");
    Shape s = pooled_shape(x, w, ceil_mode);
    const Type acc = accumulator_type(x.type());
    return compute(unique_name("max_pool_indices"), s, [&](const Index &o) {
        auto positions = [&](const RDom &r, Expr *inside) {
            PoolTap t = pool_tap(x, o, w, window_taps(r, k));
            *inside = t.inside;
            return t.index;
        };
        RDom r1 = window_domain(w, {}, "argmax_pool_v");
        Expr in1;
        Index p1 = positions(r1, &in1);
        Expr best = maximum(select(in1, cast(acc, x(p1)), acc.min()));
        RDom r2 = window_domain(w, {}, "argmax_pool_i");
        Expr in2;
        Index p2 = positions(r2, &in2);
        // The flattened index of each tap; the smallest among the maxima is the first.
        Expr spatial = 0;
        if (column_major) {
            for (size_t i = k; i-- > 0;)
                spatial = spatial * x.dim(static_cast<int>(2 + i)) + p2[2 + i];
        } else {
            for (size_t i = 0; i < k; i++)
                spatial = spatial * x.dim(static_cast<int>(2 + i)) + p2[2 + i];
        }
        Expr plane = cast(Int(64), 1);
        for (size_t i = 0; i < k; i++)
            plane = plane * cast(Int(64), x.dim(static_cast<int>(2 + i)));
        Expr base = (cast(Int(64), o[0]) * cast(Int(64), x.dim(1)) + cast(Int(64), o[1])) * plane;
        Expr index =
            minimum(select(in2 && cast(acc, x(p2)) == best, cast(Int(64), spatial), Int(64).max()));
        return base + index;
    });
}

Tensor global_pool(const Tensor &x, PoolKind kind, int p) {
    user_assert(x.rank() >= 3) << "global pooling of \"" << x.func().name()
                               << "\", which needs (N, C, spatial...) axes.";
    std::vector<int> axes;
    for (int i = 2; i < x.rank(); i++)
        axes.push_back(i);
    if (kind == PoolKind::Max) return reduce(x, Reduction::Max, axes, true);
    if (kind == PoolKind::Average) return reduce(x, Reduction::Mean, axes, true);
    Window w;
    for (int i = 2; i < x.rank(); i++) {
        int64_t v = 0;
        user_assert(is_const(x.dim(i), &v)) << "global Lp pooling needs spatial extents known "
                                               "when compiling.";
        w.kernel.push_back(static_cast<int>(v));
    }
    return pool(x, PoolKind::Lp, w, false, false, p);
}

}  // namespace dsl::nn
