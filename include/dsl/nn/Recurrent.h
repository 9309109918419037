#pragma once
/// Recurrent layers: ONNX's RNN, GRU and LSTM. Each direction is one Func whose update runs over
/// the time steps in order, and, inside a step, sums the recurrent matrix product for every
/// hidden unit before the gates are applied (docs/nn.md, "Recurrent layers").

#include <limits>
#include <string>
#include <vector>

#include "dsl/nn/Tensor.h"

namespace dsl::nn {

enum class RecurrentCell { RNN, GRU, LSTM };
enum class RecurrentDirection { Forward, Reverse, Bidirectional };

/// An activation of a recurrent cell, by ONNX's name: Relu, Tanh, Sigmoid, Affine, LeakyRelu,
/// ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign or Softplus. `alpha` and `beta`
/// apply to those that take them; NaN means the operator's default.
struct RecurrentActivation {
    std::string name;
    float alpha = std::numeric_limits<float>::quiet_NaN();
    float beta = std::numeric_limits<float>::quiet_NaN();
};

struct RecurrentOptions {
    RecurrentCell cell = RecurrentCell::LSTM;
    RecurrentDirection direction = RecurrentDirection::Forward;
    /// f (RNN); f, g (GRU); f, g, h (LSTM); for each direction in turn (forward first). Empty:
    /// the defaults (Tanh; Sigmoid, Tanh; Sigmoid, Tanh, Tanh).
    std::vector<RecurrentActivation> activations;
    /// When positive, the gates' inputs are clipped to [-clip, clip] before their activations.
    float clip = 0;
    /// GRU: apply the reset gate after the recurrent product (and its bias) rather than before.
    bool linear_before_reset = false;
    /// LSTM: couple the input and forget gates (i = 1 - f).
    bool input_forget = false;
    /// ONNX's layout 1: x is [batch, seq, input], the states [batch, directions, hidden], y
    /// [batch, seq, directions, hidden]. Layout 0 (false): x [seq, batch, input], the states
    /// [directions, batch, hidden], y [seq, directions, batch, hidden].
    bool batch_major = false;
};

struct RecurrentResult {
    Tensor y;    ///< every step's hidden state (0 past a sequence's length)
    Tensor y_h;  ///< the last hidden state
    Tensor y_c;  ///< the last cell state (LSTM only)
};

/// A recurrent layer as ONNX defines it. `w` is [directions, gates * hidden, input], `r`
/// [directions, gates * hidden, hidden], with the gates in ONNX's order (GRU: z, r, h; LSTM: i,
/// o, f, c). Optional tensors may be undefined: `b` [directions, 2 * gates * hidden] (the input
/// biases, then the recurrent ones), `sequence_lens` [batch] (int32), `initial_h`, `initial_c`
/// (LSTM) and `p` [directions, 3 * hidden] (LSTM's peepholes, i, o, f). A CompileError names
/// the tensor whose shape or type does not fit.
RecurrentResult recurrent(const RecurrentOptions &options, const Tensor &x, const Tensor &w,
                          const Tensor &r, const Tensor &b = Tensor(),
                          const Tensor &sequence_lens = Tensor(),
                          const Tensor &initial_h = Tensor(), const Tensor &initial_c = Tensor(),
                          const Tensor &p = Tensor());

}  // namespace dsl::nn
