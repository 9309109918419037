// Recurrent layers (ONNX's RNN, GRU and LSTM). Every direction's state is one Tuple-valued Func
// state(k, b, s, d) over hidden unit k, batch element b, step s and direction d, holding the
// recurrent sums of the gates and the states h (and c). Its update runs over the RDom (j, phase,
// s) with the units between phase and j: for each step, for each phase, for every unit k, the
// sums over j of R(k, j) * h(j, s - 1). The last iteration of a step's last phase applies the
// gates. A GRU whose reset gate scales h before the product needs the reset gate of every unit
// first: its candidate's sum is a second phase of the step.
#include "dsl/nn/Recurrent.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "dsl/Math.h"
#include "dsl/RDom.h"
#include "dsl/nn/Linear.h"
#include "ir/Error.h"
#include "ir/IROperator.h"
#include "nn/ops/Indexing.h"
#include "nn/ops/RecurrentStates.h"

namespace dsl::nn {

namespace {

const char *cell_name(RecurrentCell c) {
    return c == RecurrentCell::RNN ? "RNN" : c == RecurrentCell::GRU ? "GRU" : "LSTM";
}

/// The cell's name in lower case, for the Funcs' names.
std::string lower_name(RecurrentCell c) {
    return c == RecurrentCell::RNN ? "rnn" : c == RecurrentCell::GRU ? "gru" : "lstm";
}

int gates_of(RecurrentCell c) {
    return c == RecurrentCell::RNN ? 1 : c == RecurrentCell::GRU ? 3 : 4;
}

std::vector<RecurrentActivation> default_activations(RecurrentCell c) {
    if (c == RecurrentCell::RNN) return {{"Tanh"}};
    if (c == RecurrentCell::GRU) return {{"Sigmoid"}, {"Tanh"}};
    return {{"Sigmoid"}, {"Tanh"}, {"Tanh"}};
}

bool same_name(const std::string &a, const char *b) {
    std::string l = a, r = b;
    for (char &ch : l)
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    for (char &ch : r)
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return l == r;
}

/// `a` applied to `x` (of a float type).
Expr activate(const RecurrentActivation &a, const Expr &x, const char *op) {
    const Type t = x.type();
    auto c = [&](double v) { return make_const(t, v); };
    auto alpha = [&](double d) { return c(std::isnan(a.alpha) ? d : a.alpha); };
    auto beta = [&](double d) { return c(std::isnan(a.beta) ? d : a.beta); };
    const std::string &n = a.name;
    if (same_name(n, "Tanh")) return tanh(x);
    if (same_name(n, "Sigmoid")) return c(1) / (c(1) + exp(-x));
    if (same_name(n, "Relu")) return max(x, c(0));
    if (same_name(n, "Affine")) return alpha(1) * x + beta(0);
    if (same_name(n, "LeakyRelu")) return select(x >= c(0), x, alpha(0.01) * x);
    if (same_name(n, "ThresholdedRelu")) return select(x > alpha(1), x, c(0));
    if (same_name(n, "ScaledTanh")) return alpha(1) * tanh(beta(1) * x);
    if (same_name(n, "HardSigmoid")) return clamp(alpha(0.2) * x + beta(0.5), c(0), c(1));
    if (same_name(n, "Elu")) return select(x >= c(0), x, alpha(1) * (exp(x) - c(1)));
    if (same_name(n, "Softsign")) return x / (c(1) + abs(x));
    if (same_name(n, "Softplus")) return select(x > c(30), x, log(c(1) + exp(x)));
    user_error << op << ": unknown activation \"" << n
               << "\"; use Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, "
                  "HardSigmoid, Elu, Softsign or Softplus.";
    return Expr();
}

/// The layer's tensors, read in the accumulator type with defaults for those not given. `d` is
/// the direction.
struct Inputs {
    const RecurrentOptions &o;
    const char *op;
    Type acc;
    Tensor x, w, r, b, seq, h0, c0, p;
    Expr steps, batch, hidden;
    int directions = 1;

    Expr zero() const { return make_const(acc, 0); }
    /// x at time t of batch element bb, input i.
    Expr input(const Expr &t, const Expr &bb, const Expr &i) const {
        return cast(acc, o.batch_major ? x({bb, t, i}) : x({t, bb, i}));
    }
    Expr weight(const Expr &d, const Expr &row, const Expr &i) const {
        return cast(acc, w({d, row, i}));
    }
    Expr recurrence(const Expr &d, const Expr &row, const Expr &j) const {
        return cast(acc, r({d, row, j}));
    }
    /// The input bias (`recurrent` false) or the recurrent one of gate g, unit k.
    Expr bias(const Expr &d, int g, const Expr &k, bool recurrent) const {
        if (!b.defined()) return zero();
        const int gates = gates_of(o.cell);
        return cast(acc, b({d, Expr((recurrent ? gates : 0) + g) * hidden + k}));
    }
    /// Batch element bb, clamped (groups of four sequences may run past the batch's end).
    Expr element(const Expr &bb) const { return clamp(bb, 0, batch - 1); }
    Expr length(const Expr &bb) const {
        return seq.defined() ? clamp(cast(Int(32), seq({element(bb)})), 0, steps) : steps;
    }
    Expr initial(const Tensor &t, const Expr &d, const Expr &bb, const Expr &k) const {
        if (!t.defined()) return zero();
        return cast(acc, o.batch_major ? t({element(bb), d, k}) : t({d, element(bb), k}));
    }
    Expr peephole(const Expr &d, int which, const Expr &k) const {
        return p.defined() ? cast(acc, p({d, Expr(which) * hidden + k})) : zero();
    }
    /// The time of step s of direction d for batch element bb: s forward; backwards from the
    /// sequence's end in reverse (direction 1 of a bidirectional layer). The map is its own
    /// inverse: it also gives the step of a time.
    Expr time(const Expr &d, const Expr &s, const Expr &bb) const {
        Expr t = s;
        if (o.direction == RecurrentDirection::Reverse) {
            t = length(bb) - 1 - s;
        } else if (o.direction == RecurrentDirection::Bidirectional) {
            t = select(d == 0, s, length(bb) - 1 - s);
        }
        return clamp(t, 0, steps - 1);
    }
};

/// x times w's gates for every direction, proj(m, b, t, d) with m over gates * hidden: the
/// operator library's matrix product of x's rows (t, b) by w transposed (materialized, so that
/// the product reads rows of it), with its register tiles, computed at root.
Func input_projection(const Inputs &in) {
    const std::string op = in.op;
    const Expr steps = in.steps, batch = in.batch;
    const Expr inputs = in.x.dim(2), rows = in.w.dim(1);
    Tensor x_rows =
        compute(unique_name(op + "_x_rows"), {steps * batch, inputs}, [&](const Index &i) {
            return in.input(clamp(i[0] / batch, 0, steps - 1), i[0] % batch, i[1]);
        });
    Tensor w_t =
        compute(unique_name(op + "_w_t"), {inputs, rows * in.directions}, [&](const Index &i) {
            return in.weight(clamp(i[1] / rows, 0, in.directions - 1), i[1] % rows, i[0]);
        });
    w_t.func().compute_root();
    Tensor p = matmul(x_rows, w_t);
    Func pf = p.func();
    pf.compute_root();
    if (p.schedule()) p.schedule()(pf, Target::host());
    Var m("m"), b("b"), t("t"), d("d");
    Func proj(unique_name(op + "_x_w"));
    proj(m, b, t, d) = p({t * batch + b, d * rows + m});
    return proj;
}

/// Every direction's state: Tuple(sums of the gates..., h[, c]) at (k, b, s, d), s the step.
Func recurrent_state(const Inputs &in, const std::vector<RecurrentActivation> &acts) {
    const RecurrentOptions &o = in.o;
    const std::string op = in.op;
    const int gates = gates_of(o.cell);
    const bool lstm = o.cell == RecurrentCell::LSTM, gru = o.cell == RecurrentCell::GRU;
    const bool reset_first = gru && !o.linear_before_reset;  // the two-phase GRU
    const int phases = reset_first ? 2 : 1;
    const int h_index = gates, c_index = gates + 1;
    const Expr H = in.hidden;
    const size_t per_direction = default_activations(o.cell).size();
    Func proj = input_projection(in);

    const std::string lower = lower_name(o.cell);
    Func st(unique_name(lower + "_state"));
    Var k("k"), b("b"), s("s"), d("d");
    st(k, b, s, d) =
        Tuple(std::vector<Expr>(static_cast<size_t>(gates + (lstm ? 2 : 1)), in.zero()));

    // R rearranged so that the sums of a vector of units over j read it in order: rt(ki, g,
    // j, ko, d) is R's row g * H + ko * lanes + ki, column j (the rows past H repeat the
    // last). Read as R is stored, a vector of units reads lanes rows of R apart at every j.
    const int lanes = std::max(1, Target::host().natural_vector_size(in.acc));
    Var vi("ki"), vg("g"), vj("j"), vo("ko");
    Func rt(unique_name(op + "_r_blocks"));
    rt(vi, vg, vj, vo, d) = in.recurrence(d, vg * H + min(vo * lanes + vi, H - 1), vj);
    rt.bound(vi, 0, lanes).compute_root().vectorize(vi);

    RDom rr({{0, H}, {0, phases}, {0, in.steps}}, unique_name(lower + "_step"));
    const RVar j = rr[0], phase = rr[1], step = rr[2];
    const Expr active = step < in.length(b);
    const Expr time = in.time(d, step, b);
    const Expr previous = max(step - 1, 0);
    auto h_prev = [&](const Expr &unit) {
        return select(step == 0, in.initial(in.h0, d, b, unit), st(unit, b, previous, d)[h_index]);
    };
    auto c_prev = [&](const Expr &unit) {
        return select(step == 0, in.initial(in.c0, d, b, unit), st(unit, b, previous, d)[c_index]);
    };
    auto clip = [&](const Expr &e) {
        if (o.clip <= 0) return e;
        return clamp(e, make_const(in.acc, -o.clip), make_const(in.acc, o.clip));
    };
    // Activation `which` of the cell; directions with activations of their own choose by d.
    auto act = [&](int which, const Expr &e) {
        const Expr x = clip(e);
        const Expr first = activate(acts[which], x, in.op);
        if (acts.size() == per_direction) return first;
        return select(d == 0, first, activate(acts[per_direction + which], x, in.op));
    };
    // Gate g's input for unit `unit` at this step, with the recurrent sum `sum`.
    auto gate_input = [&](int g, const Expr &unit, const Expr &sum) {
        return proj(Expr(g) * H + unit, b, time, d) + in.bias(d, g, unit, false) +
               in.bias(d, g, unit, true) + sum;
    };

    std::vector<Expr> sums;
    for (int g = 0; g < gates; g++) {
        const Expr old = st(k, b, step, d)[g];
        // The two-phase GRU's candidate sums r(j) * h(j), which phase 0 left in element 1.
        const Expr h_j = reset_first && g == 2 ? Expr(st(j, b, step, d)[1]) : h_prev(j);
        const Expr sum = fma(rt(k % lanes, g, j, k / lanes, d), h_j, old);
        const int my_phase = reset_first && g == 2 ? 1 : 0;
        sums.push_back(phases == 1 ? sum : select(phase == my_phase, sum, old));
    }

    // The gates, from the finished sums.
    Expr h_new, c_new;
    if (o.cell == RecurrentCell::RNN) {
        h_new = act(0, gate_input(0, k, sums[0]));
    } else if (gru) {
        const Expr z = act(0, gate_input(0, k, sums[0]));
        Expr candidate_in = gate_input(2, k, sums[2]);
        if (o.linear_before_reset) {
            const Expr reset = act(0, gate_input(1, k, sums[1]));
            candidate_in = proj(2 * H + k, b, time, d) + in.bias(d, 2, k, false) +
                           reset * (sums[2] + in.bias(d, 2, k, true));
        }
        const Expr candidate = act(1, candidate_in);
        h_new = (make_const(in.acc, 1) - z) * candidate + z * h_prev(k);
    } else {
        const Expr c = c_prev(k);
        const Expr forget = act(0, gate_input(2, k, sums[2]) + in.peephole(d, 2, k) * c);
        const Expr input = o.input_forget
                               ? make_const(in.acc, 1) - forget
                               : act(0, gate_input(0, k, sums[0]) + in.peephole(d, 0, k) * c);
        const Expr cell = act(1, gate_input(3, k, sums[3]));
        c_new = forget * c + input * cell;
        const Expr output = act(0, gate_input(1, k, sums[1]) + in.peephole(d, 1, k) * c_new);
        h_new = output * act(2, c_new);
    }
    // Only the last iteration of a step writes the states: the loop over j is split there
    // (likely), so the others only sum. Past a sequence's end the states stay as they were.
    const Expr finishing = likely(j < H - 1);
    const Expr last_phase = phase == phases - 1;
    auto element = [&](int e) { return Expr(st(k, b, step, d)[e]); };
    std::vector<Expr> values = sums;
    if (reset_first) {
        // Phase 0 ends with r(k) * h(k) in element 1, for phase 1's sums.
        const Expr reset = act(0, gate_input(1, k, sums[1]));
        values[1] = select(finishing, sums[1], select(phase == 0, reset * h_prev(k), element(1)));
    }
    values.push_back(
        select(finishing, element(h_index),
               select(last_phase, select(active, h_new, h_prev(k)), element(h_index))));
    if (lstm) {
        values.push_back(
            select(finishing, element(c_index),
                   select(last_phase, select(active, c_new, c_prev(k)), element(c_index))));
    }
    st(k, b, step, d) = Tuple(values);
    // In every schedule the steps go in order, and in a step each phase for every unit before
    // the next; the units go in vectors, each summing over j in registers.
    Var ko("ko"), ki("ki"), bo("bo"), bi("bi"), group("group"), sequence("sequence");
    st.bound(k, 0, H);
    Stage update = st.update();
    update.split(k, ko, ki, lanes, TailStrategy::GuardWithIf);
    // Four sequences or more: groups of four on a thread each, their sums over j side by side
    // in registers, so that each vector of R loaded serves four (the group past the batch's
    // end computes copies of its last sequence, whose reads are clamped).
    Stage many = update.specialize(in.batch >= 4);
    many.split(b, bo, bi, 4, TailStrategy::RoundUp)
        .reorder(ki, bi, j, ko, phase, step, bo, d)
        .vectorize(ki)
        .unroll(bi)
        .fuse(bo, d, group)
        .parallel(group);
    // Fewer: each sequence (and direction) on a thread of its own.
    update.reorder(ki, j, ko, phase, step, b, d)
        .vectorize(ki)
        .fuse(b, d, sequence)
        .parallel(sequence);
    // The two phases unrolled: each sums only its own gates.
    if (phases > 1) {
        many.unroll(phase);
        update.unroll(phase);
    }
    return st;
}

}  // namespace

RecurrentResult recurrent(const RecurrentOptions &o, const Tensor &x, const Tensor &w,
                          const Tensor &r, const Tensor &b, const Tensor &sequence_lens,
                          const Tensor &initial_h, const Tensor &initial_c, const Tensor &p) {
    return recurrent_sharing_states(o, x, w, r, b, sequence_lens, initial_h, initial_c, p, nullptr);
}

RecurrentResult recurrent_sharing_states(const RecurrentOptions &o, const Tensor &x,
                                         const Tensor &w, const Tensor &r, const Tensor &b,
                                         const Tensor &sequence_lens, const Tensor &initial_h,
                                         const Tensor &initial_c, const Tensor &p,
                                         const std::function<Tensor(const Tensor &)> &share) {
    const char *op = cell_name(o.cell);
    const int gates = gates_of(o.cell);
    const bool bidirectional = o.direction == RecurrentDirection::Bidirectional;
    const int directions = bidirectional ? 2 : 1;
    auto check_rank = [&](const Tensor &t, int rank, const char *what) {
        user_assert(!t.defined() || t.rank() == rank)
            << op << ": " << what << " (\"" << t.func().name() << "\") has rank " << t.rank()
            << "; it must have rank " << rank << ".";
    };
    user_assert(x.defined() && w.defined() && r.defined())
        << op << ": the input X and the weights W and R must be given.";
    check_rank(x, 3, "the input X");
    check_rank(w, 3, "the weights W");
    check_rank(r, 3, "the recurrence weights R");
    check_rank(b, 2, "the biases B");
    check_rank(sequence_lens, 1, "sequence_lens");
    check_rank(initial_h, 3, "initial_h");
    check_rank(initial_c, 3, "initial_c");
    check_rank(p, 2, "the peepholes P");
    user_assert(x.type().is_float()) << op << ": the input X (\"" << x.func().name() << "\") is "
                                     << x.type() << "; recurrent layers compute in floating point.";
    user_assert(!sequence_lens.defined() || sequence_lens.type().is_int() ||
                sequence_lens.type().is_uint())
        << op << ": sequence_lens (\"" << sequence_lens.func().name() << "\") must be integers.";
    int64_t known = 0;
    user_assert(!is_const(w.dim(0), &known) || known == directions)
        << op << ": W (\"" << w.func().name() << "\") has " << known
        << " directions but the layer has " << directions << "; set direction to match.";
    const Expr hidden = r.dim(2);
    int64_t h = 0;
    if (is_const(hidden, &h) && is_const(r.dim(1), &known)) {
        user_assert(known == gates * h)
            << op << ": R (\"" << r.func().name() << "\") has " << known << " rows; a " << op
            << " of hidden size " << h << " needs " << gates * h << " (" << gates << " gates).";
    }

    std::vector<RecurrentActivation> acts = o.activations;
    const size_t per_direction = default_activations(o.cell).size();
    if (acts.empty()) acts = default_activations(o.cell);
    user_assert(acts.size() == per_direction || acts.size() == per_direction * directions)
        << op << ": " << acts.size() << " activations given; it takes " << per_direction
        << " per direction.";

    const Expr batch = o.batch_major ? x.dim(0) : x.dim(1);
    const Expr steps = o.batch_major ? x.dim(1) : x.dim(0);
    Inputs in{o,
              op,
              accumulator_type(x.type()),
              x,
              w,
              r,
              b,
              sequence_lens,
              initial_h,
              initial_c,
              p,
              steps,
              batch,
              hidden,
              directions};
    Func states = recurrent_state(in, acts);
    const int h_index = gates, c_index = gates + 1;
    const Type out_type = x.type();
    const std::string lower = lower_name(o.cell);
    // Every step's hidden (and LSTM's cell) state, in the recurrence's order of steps: part 0
    // the hidden state, part 1 the cell state. The results read it; `share` may compute it
    // once for all of them.
    const bool lstm = o.cell == RecurrentCell::LSTM;
    Tensor all_states = compute(
        unique_name(lower + "_states"),
        {Expr(lstm ? 2 : 1), Expr(directions), in.steps, batch, hidden}, [&](const Index &i) {
            const Expr hs = states(i[4], i[3], i[2], i[1])[h_index];
            return lstm ? select(i[0] == 0, hs, states(i[4], i[3], i[2], i[1])[c_index]) : hs;
        });
    if (share) all_states = share(all_states);
    auto state = [&](int part, const Expr &k, const Expr &bb, const Expr &t, const Expr &d) {
        return all_states({Expr(part), d, t, bb, k});
    };

    RecurrentResult result;
    const Shape y_shape = o.batch_major ? Shape{batch, in.steps, directions, hidden}
                                        : Shape{in.steps, directions, batch, hidden};
    result.y = compute(unique_name(lower + "_y"), y_shape, [&](const Index &i) {
        const Expr t = o.batch_major ? i[1] : i[0], d = o.batch_major ? i[2] : i[1];
        const Expr bb = o.batch_major ? i[0] : i[2], k = i[3];
        // Time t is the step that time(d, t, bb) names (the map is its own inverse).
        const Expr value = cast(out_type, state(0, k, bb, in.time(d, t, bb), d));
        return select(t < in.length(bb), value, make_const(out_type, 0));
    });
    const Shape last_shape =
        o.batch_major ? Shape{batch, directions, hidden} : Shape{directions, batch, hidden};
    auto last = [&](int part, const std::string &name) {
        return compute(unique_name(lower + name), last_shape, [&](const Index &i) {
            const Expr d = o.batch_major ? i[1] : i[0], bb = o.batch_major ? i[0] : i[1];
            return cast(out_type, state(part, i[2], bb, in.steps - 1, d));
        });
    };
    result.y_h = last(0, "_y_h");
    if (lstm) result.y_c = last(1, "_y_c");
    return result;
}

}  // namespace dsl::nn
