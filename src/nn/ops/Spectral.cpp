// Spectral operators (ONNX's DFT, STFT and MelWeightMatrix). A transform along an axis is a
// matrix product: the signal's rows (every other axis flattened; the real and imaginary parts
// of a sample side by side) times a matrix of twiddle factors whose columns are the result's
// bins, real and imaginary side by side, with the window folded into its rows.
#include "dsl/nn/Spectral.h"

#include <cmath>

#include "dsl/Math.h"
#include "dsl/nn/Linear.h"
#include "ir/Error.h"
#include "ir/IROperator.h"
#include "nn/ops/Indexing.h"

namespace dsl::nn {

namespace {

/// Samples per element of x's last axis: 1 (real) or 2 (complex); a CompileError otherwise.
int parts_of(const Tensor &x, const char *op) {
    int64_t parts = 0;
    user_assert(x.rank() >= 2 && is_const(x.dim(-1), &parts) && (parts == 1 || parts == 2))
        << op << ": the last axis of \"" << x.func().name()
        << "\" must hold one value (real) or two (complex) per element, known when compiling"
        << (x.rank() >= 2 ? "; its extent is " : "; it has rank ")
        << (x.rank() >= 2 ? x.dim(-1) : Expr(x.rank()))
        << " (for an ImageParam, constrain it: dim(0).set_extent(1)).";
    user_assert(x.type().is_float())
        << op << ": \"" << x.func().name() << "\" is " << x.type() << "; it must be float.";
    return static_cast<int>(parts);
}

/// The twiddle factors of a transform of `n` points, bins 0 ... bins - 1, for `samples` input
/// samples of `parts` values each: row sample * parts + part, column bin * 2 + (0 real, 1
/// imaginary). Forward e^{-2 pi i k m / n}, inverse e^{+...} / n; times window(m) when given.
Tensor twiddles(const Expr &samples, int parts, const Expr &n, const Expr &bins, bool inverse,
                const Tensor &window, Type acc) {
    Tensor w =
        compute(unique_name("dft_twiddles"), {samples * parts, bins * 2}, [&](const Index &i) {
            const Expr m = i[0] / parts, part = i[0] % parts, k = i[1] / 2, imag = i[1] % 2;
            // The angle's numerator k m mod n, in 64 bits, so that the angle stays small.
            const Expr turns = (cast(Int(64), k) * cast(Int(64), m)) % cast(Int(64), n);
            const Expr angle = cast(Float(64), turns) * (2 * M_PI) / cast(Float(64), n);
            const Expr c = cos(angle), s = sin(angle);
            // (a + ib)(cos -+ i sin): forward, the real part takes a cos + b sin and the imaginary
            // part b cos - a sin; inverse, a cos - b sin and a sin + b cos.
            const Expr sign = make_const(Float(64), inverse ? 1.0 : -1.0);
            Expr v =
                select(imag == 0, select(part == 0, c, -sign * s), select(part == 0, sign * s, c));
            if (inverse) v = v / cast(Float(64), n);
            if (window.defined()) v = v * cast(Float(64), window({m}));
            return cast(acc, v);
        });
    w.func().compute_root();
    return w;
}

/// rows [m, samples * parts] times the twiddles, computed at root with the matrix product's
/// own schedule: [m, bins * 2].
Tensor transform(const Tensor &rows, const Tensor &twiddle) {
    Tensor p = matmul(rows, twiddle);
    Func f = p.func();
    f.compute_root();
    if (p.schedule()) p.schedule()(f, Target::host());
    return p;
}

}  // namespace

Tensor dft(const Tensor &x, int axis_in, bool inverse, bool onesided, const Expr &length) {
    const int parts = parts_of(x, "dft");
    const int rank = x.rank();
    const int axis = normalize_axis(axis_in, rank, "dft");
    user_assert(axis != rank - 1)
        << "dft: the axis of the transform of \"" << x.func().name()
        << "\" is its last, which holds the real and imaginary parts; choose another.";
    const Type acc = accumulator_type(x.type());
    const Expr given = x.dim(axis);
    const Expr n = length.defined() ? cast(Int(32), length) : given;
    const Expr samples = min(given, n);  // past the input, zeros: no rows
    const Expr bins = onesided ? n / 2 + 1 : n;
    // The other axes, flattened into the rows (the last of them varies fastest).
    std::vector<int> others;
    Shape others_shape;
    for (int a = 0; a < rank - 1; a++) {
        if (a == axis) continue;
        others.push_back(a);
        others_shape.push_back(x.dim(a));
    }
    Expr count = 1;
    for (const Expr &e : others_shape)
        count = count * e;
    Tensor rows = compute(unique_name("dft_rows"), {count, samples * parts}, [&](const Index &i) {
        Index index = unflatten(i[0], others_shape);
        index.insert(index.begin() + axis, i[1] / parts);
        index.push_back(i[1] % parts);
        return cast(acc, x(index));
    });
    Tensor p = transform(rows, twiddles(samples, parts, n, bins, inverse, Tensor(), acc));
    Shape shape = x.shape();
    shape[static_cast<size_t>(axis)] = bins;
    shape[static_cast<size_t>(rank - 1)] = 2;
    return compute(unique_name("dft"), shape, [&](const Index &i) {
        Index other;
        for (int a : others)
            other.push_back(i[static_cast<size_t>(a)]);
        const Expr row = flat_index(other, others_shape);
        const Expr v =
            p({row, i[static_cast<size_t>(axis)] * 2 + i[static_cast<size_t>(rank - 1)]});
        return cast(x.type(), v);
    });
}

Tensor stft(const Tensor &signal, const Expr &frame_step, const Tensor &window,
            const Expr &frame_length, bool onesided) {
    const int parts = parts_of(signal, "stft");
    user_assert(signal.rank() == 3)
        << "stft: the signal \"" << signal.func().name()
        << "\" must be [batch, length, 1 or 2]; it has rank " << signal.rank() << ".";
    user_assert(window.defined() || frame_length.defined())
        << "stft of \"" << signal.func().name() << "\": give a window or a frame length.";
    user_assert(!window.defined() || window.rank() == 1)
        << "stft: the window \"" << window.func().name() << "\" must be 1-D.";
    const Type acc = accumulator_type(signal.type());
    const Expr frame = window.defined() ? window.dim(0) : cast(Int(32), frame_length);
    const Expr step = cast(Int(32), frame_step);
    const Expr frames = (signal.dim(1) - frame) / step + 1;
    const Expr bins = onesided ? frame / 2 + 1 : frame;
    Tensor rows = compute(
        unique_name("stft_frames"), {signal.dim(0) * frames, frame * parts}, [&](const Index &i) {
            // Clamped for bounds inference, which cannot tell
            // that frames > 0.
            const Expr b = clamp(i[0] / frames, 0, signal.dim(0) - 1);
            const Expr t = (i[0] % frames) * step + i[1] / parts;
            return cast(acc, signal({b, clamp(t, 0, signal.dim(1) - 1), i[1] % parts}));
        });
    Tensor p = transform(rows, twiddles(frame, parts, frame, bins, false, window, acc));
    return compute(unique_name("stft"), {signal.dim(0), frames, bins, 2}, [&](const Index &i) {
        return cast(signal.type(), p({i[0] * frames + i[1], i[2] * 2 + i[3]}));
    });
}

Tensor mel_weight_matrix(const Expr &num_mel_bins, const Expr &dft_length, const Expr &sample_rate,
                         const Expr &lower_edge_hertz, const Expr &upper_edge_hertz, Type type) {
    const Expr mels = cast(Int(32), num_mel_bins), length = cast(Int(32), dft_length);
    const Type f64 = Float(64);
    auto mel = [&](const Expr &hz) {
        return 2595.0 * log(1.0 + cast(f64, hz) / 700.0) / std::log(10.0);
    };
    const Expr low = mel(lower_edge_hertz), high = mel(upper_edge_hertz);
    const Expr step = (high - low) / cast(f64, mels + 2);
    // The filters' edges, as spectrogram bins: mels + 2 points equally spaced in mel.
    Var i("i");
    Func edge(unique_name("mel_edges"));
    const Expr hz = 700.0 * (exp((cast(f64, i) * step + low) / 2595.0 * std::log(10.0)) - 1.0);
    edge(i) = cast(Int(32), floor(cast(f64, length + 1) * hz / cast(f64, sample_rate)));
    edge.compute_root();
    return compute(unique_name("mel_weight_matrix"), {length / 2 + 1, mels}, [&](const Index &o) {
        const Expr j = o[0], m = o[1];
        const Expr l = edge(m), c = edge(m + 1), h = edge(m + 2);
        const Expr rising =
            select(c == l, select(j == c, 1.0, 0.0),
                   select(l <= j && j <= c, cast(f64, j - l) / cast(f64, max(c - l, 1)), 0.0));
        const Expr falling = cast(f64, h - j) / cast(f64, max(h - c, 1));
        return cast(type, select(h > c && c <= j && j < h, falling, rising));
    });
}

}  // namespace dsl::nn
