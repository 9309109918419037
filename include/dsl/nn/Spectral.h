#pragma once
/// Spectral operators: ONNX's DFT, STFT and MelWeightMatrix. A transform is a matrix product
/// (the library's `matmul`) of the signal's rows by a matrix of twiddle factors (with the
/// window folded in), computed per run: O(n^2) per row, vectorized and tiled (docs/nn.md).

#include "dsl/nn/Tensor.h"

namespace dsl::nn {

/// The discrete Fourier transform of `x` along `axis`. x's last axis holds each element: one
/// value (real) or two (real and imaginary); `axis` is another axis. The result is complex (its
/// last axis 2) with `length` elements along `axis` (x's extent there when undefined; x is cut
/// or padded with zeros to it), or length / 2 + 1 when `onesided` (the others are conjugates).
/// `inverse` transforms back (e^{+i...}, divided by length).
Tensor dft(const Tensor &x, int axis, bool inverse = false, bool onesided = false,
           const Expr &length = Expr());

/// The short-time Fourier transform of `signal` [batch, length, 1 or 2]: frames of
/// `frame_length` samples every `frame_step`, each multiplied by `window` (when defined; its
/// extent is then the frame length, and `frame_length` may be undefined), transformed. The
/// result is [batch, frames, bins, 2] with frames = (length - frame_length) / frame_step + 1
/// and bins = frame_length / 2 + 1 when `onesided`, else frame_length.
Tensor stft(const Tensor &signal, const Expr &frame_step, const Tensor &window,
            const Expr &frame_length, bool onesided = true);

/// ONNX's MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins] weights of triangular filters
/// equally spaced on the mel scale (mel(f) = 2595 log10(1 + f / 700)) between the two edges,
/// of element type `type`.
Tensor mel_weight_matrix(const Expr &num_mel_bins, const Expr &dft_length, const Expr &sample_rate,
                         const Expr &lower_edge_hertz, const Expr &upper_edge_hertz,
                         Type type = Float(32));

}  // namespace dsl::nn
