#pragma once
/// nn::recurrent for the graph compiler: the layer's results (every step's hidden state, the
/// last hidden and cell states) all read one tensor of every step's states, which `share` may
/// replace by a tensor computed once (a kernel of its own) when several results are used.

#include <functional>

#include "dsl/nn/Recurrent.h"

namespace dsl::nn {

/// As recurrent(); `share` (if given) receives the tensor of all states, shape [parts (2 for
/// an LSTM: hidden, cell; else 1), directions, steps, batch, hidden] in the recurrence's order
/// of steps, and returns the tensor the results read in its place (with its shape and values).
RecurrentResult recurrent_sharing_states(const RecurrentOptions &options, const Tensor &x,
                                         const Tensor &w, const Tensor &r, const Tensor &b,
                                         const Tensor &sequence_lens, const Tensor &initial_h,
                                         const Tensor &initial_c, const Tensor &p,
                                         const std::function<Tensor(const Tensor &)> &share);

}  // namespace dsl::nn
