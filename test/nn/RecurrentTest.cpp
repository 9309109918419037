// RNN, GRU and LSTM layers against a plain C++ loop that follows ONNX's equations step by step,
// in double precision: every direction, sequence lengths, both layouts, initial states, biases,
// peepholes, GRU's two reset orders, LSTM's coupled gates, clipping and other activations.
#include <algorithm>
#include <cmath>
#include <functional>

#include "NNTestUtil.h"
#include "OnnxModels.h"
#include "common/ErrorCheck.h"
#include "common/TempDirectory.h"
#include "dsl/nn/Model.h"
#include "dsl/nn/Recurrent.h"

namespace dsl::test {
namespace {

using nn::RecurrentActivation;
using nn::RecurrentCell;
using nn::RecurrentDirection;
using nn::RecurrentOptions;

double apply(const RecurrentActivation &a, double x) {
    const double alpha = a.alpha, beta = a.beta;
    auto or_default = [](double v, double d) { return std::isnan(v) ? d : v; };
    if (a.name == "Tanh") return std::tanh(x);
    if (a.name == "Sigmoid") return 1 / (1 + std::exp(-x));
    if (a.name == "Relu") return std::max(x, 0.0);
    if (a.name == "LeakyRelu") return x >= 0 ? x : or_default(alpha, 0.01) * x;
    if (a.name == "HardSigmoid")
        return std::clamp(or_default(alpha, 0.2) * x + or_default(beta, 0.5), 0.0, 1.0);
    if (a.name == "ScaledTanh") return or_default(alpha, 1) * std::tanh(or_default(beta, 1) * x);
    if (a.name == "Softsign") return x / (1 + std::abs(x));
    ADD_FAILURE() << "the reference lacks " << a.name;
    return 0;
}

/// The layer's tensors, in ONNX's shapes (layout 0), with Buffers indexed innermost first.
struct Layer {
    RecurrentOptions o;
    int steps = 0, batch = 0, inputs = 0, hidden = 0;
    Buffer<float> x, w, r, b, h0, c0, p;
    Buffer<int32_t> lens;
    int directions() const { return o.direction == RecurrentDirection::Bidirectional ? 2 : 1; }
    int gates() const {
        return o.cell == RecurrentCell::RNN ? 1 : o.cell == RecurrentCell::GRU ? 3 : 4;
    }
};

Layer make_layer(const RecurrentOptions &o, int steps, int batch, int inputs, int hidden,
                 std::vector<int32_t> lens, unsigned seed) {
    Layer l;
    l.o = o;
    l.steps = steps, l.batch = batch, l.inputs = inputs, l.hidden = hidden;
    const int d = l.directions(), g = l.gates();
    l.x = o.batch_major ? random_buffer({inputs, steps, batch}, seed)
                        : random_buffer({inputs, batch, steps}, seed);
    l.w = random_buffer({inputs, g * hidden, d}, seed + 1, -0.5f, 0.5f);
    l.r = random_buffer({hidden, g * hidden, d}, seed + 2, -0.5f, 0.5f);
    l.b = random_buffer({2 * g * hidden, d}, seed + 3, -0.3f, 0.3f);
    l.h0 = o.batch_major ? random_buffer({hidden, d, batch}, seed + 4)
                         : random_buffer({hidden, batch, d}, seed + 4);
    l.c0 = o.batch_major ? random_buffer({hidden, d, batch}, seed + 5)
                         : random_buffer({hidden, batch, d}, seed + 5);
    l.p = random_buffer({3 * hidden, d}, seed + 6, -0.5f, 0.5f);
    if (!lens.empty()) {
        l.lens = Buffer<int32_t>(batch);
        for (int i = 0; i < batch; i++)
            l.lens(i) = lens[i];
    }
    return l;
}

struct Expected {
    // y(t, d, b, k) and the last states (d, b, k), in ONNX's layout-0 order.
    std::vector<double> y, y_h, y_c;
    int steps, directions, batch, hidden;
    double &at(std::vector<double> &v, int t, int d, int b, int k) {
        return v[((size_t(t) * directions + d) * batch + b) * hidden + k];
    }
};

/// ONNX's equations, step by step.
Expected reference(const Layer &l) {
    const RecurrentOptions &o = l.o;
    const int D = l.directions(), G = l.gates(), H = l.hidden, T = l.steps;
    Expected e{{}, {}, {}, T, D, l.batch, H};
    e.y.assign(size_t(T) * D * l.batch * H, 0.0);
    e.y_h.assign(size_t(D) * l.batch * H, 0.0);
    e.y_c = e.y_h;
    auto x = [&](int t, int b, int i) { return o.batch_major ? l.x(i, t, b) : l.x(i, b, t); };
    auto state0 = [&](const Buffer<float> &s, int d, int b, int k) {
        return o.batch_major ? s(k, d, b) : s(k, b, d);
    };
    const size_t per = o.activations.empty() ? 0 : o.activations.size() / D;
    for (int d = 0; d < D; d++) {
        const bool forward = o.direction == RecurrentDirection::Forward ||
                             (o.direction == RecurrentDirection::Bidirectional && d == 0);
        auto act = [&](int which, double v) {
            if (o.clip > 0) v = std::clamp(v, -double(o.clip), double(o.clip));
            if (per == 0) {
                static const char *names[3][3] = {
                    {"Tanh"}, {"Sigmoid", "Tanh"}, {"Sigmoid", "Tanh", "Tanh"}};
                return apply({names[G == 1 ? 0 : G == 3 ? 1 : 2][which]}, v);
            }
            return apply(o.activations[d * per + which], v);
        };
        for (int b = 0; b < l.batch; b++) {
            const int len = l.lens.defined() ? l.lens(b) : T;
            std::vector<double> h(H), c(H);
            for (int k = 0; k < H; k++) {
                h[k] = state0(l.h0, d, b, k);
                c[k] = state0(l.c0, d, b, k);
            }
            for (int s = 0; s < len; s++) {
                const int t = forward ? s : len - 1 - s;
                // xw[g][k] (with the input bias) and hr[g][k] = R h (with the recurrent bias).
                std::vector<std::vector<double>> xw(G, std::vector<double>(H)), hr = xw;
                for (int g = 0; g < G; g++) {
                    for (int k = 0; k < H; k++) {
                        double sx = l.b(g * H + k, d), sh = l.b((G + g) * H + k, d);
                        for (int i = 0; i < l.inputs; i++)
                            sx += double(l.w(i, g * H + k, d)) * x(t, b, i);
                        for (int j = 0; j < H; j++)
                            sh += double(l.r(j, g * H + k, d)) * h[j];
                        xw[g][k] = sx, hr[g][k] = sh;
                    }
                }
                std::vector<double> hn(H), cn(H);
                if (o.cell == RecurrentCell::RNN) {
                    for (int k = 0; k < H; k++)
                        hn[k] = act(0, xw[0][k] + hr[0][k]);
                } else if (o.cell == RecurrentCell::GRU) {
                    std::vector<double> z(H), rg(H);
                    for (int k = 0; k < H; k++) {
                        z[k] = act(0, xw[0][k] + hr[0][k]);
                        rg[k] = act(0, xw[1][k] + hr[1][k]);
                    }
                    for (int k = 0; k < H; k++) {
                        double in;
                        if (o.linear_before_reset) {
                            in = xw[2][k] + rg[k] * hr[2][k];
                        } else {
                            double sh = l.b((G + 2) * H + k, d);
                            for (int j = 0; j < H; j++)
                                sh += double(l.r(j, 2 * H + k, d)) * rg[j] * h[j];
                            in = xw[2][k] + sh;
                        }
                        hn[k] = (1 - z[k]) * act(1, in) + z[k] * h[k];
                    }
                } else {
                    for (int k = 0; k < H; k++) {
                        const double pi = l.p(k, d), po = l.p(H + k, d), pf = l.p(2 * H + k, d);
                        const double f = act(0, xw[2][k] + hr[2][k] + pf * c[k]);
                        const double i =
                            o.input_forget ? 1 - f : act(0, xw[0][k] + hr[0][k] + pi * c[k]);
                        cn[k] = f * c[k] + i * act(1, xw[3][k] + hr[3][k]);
                        const double out = act(0, xw[1][k] + hr[1][k] + po * cn[k]);
                        hn[k] = out * act(2, cn[k]);
                    }
                    c = cn;
                }
                h = hn;
                for (int k = 0; k < H; k++)
                    e.at(e.y, t, d, b, k) = h[k];
            }
            for (int k = 0; k < H; k++) {
                e.y_h[(size_t(d) * l.batch + b) * H + k] = h[k];
                e.y_c[(size_t(d) * l.batch + b) * H + k] = c[k];
            }
        }
    }
    return e;
}

/// Runs the layer through nn::recurrent and compares every output with the reference.
void check(const Layer &l, bool with_lens = true) {
    using nn::Tensor;
    const bool lstm = l.o.cell == RecurrentCell::LSTM;
    nn::RecurrentResult res = nn::recurrent(
        l.o, Tensor(l.x, "x"), Tensor(l.w, "w"), Tensor(l.r, "r"), Tensor(l.b, "b"),
        with_lens && l.lens.defined() ? Tensor(l.lens, "lens") : Tensor(), Tensor(l.h0, "h0"),
        lstm ? Tensor(l.c0, "c0") : Tensor(), lstm ? Tensor(l.p, "p") : Tensor());
    Expected e = reference(l);
    const int D = l.directions(), B = l.batch, H = l.hidden, T = l.steps;
    Buffer<float> y = realize(res.y), y_h = realize(res.y_h);
    const double tol = 2e-5;
    for (int t = 0; t < T; t++)
        for (int d = 0; d < D; d++)
            for (int b = 0; b < B; b++)
                for (int k = 0; k < H; k++) {
                    const float got = l.o.batch_major ? y(k, d, t, b) : y(k, b, d, t);
                    ASSERT_NEAR(got, e.at(e.y, t, d, b, k), tol)
                        << "y at t=" << t << " d=" << d << " b=" << b << " k=" << k;
                }
    auto check_last = [&](const Buffer<float> &got, const std::vector<double> &want,
                          const char *what) {
        for (int d = 0; d < D; d++)
            for (int b = 0; b < B; b++)
                for (int k = 0; k < H; k++) {
                    const float v = l.o.batch_major ? got(k, d, b) : got(k, b, d);
                    ASSERT_NEAR(v, want[(size_t(d) * B + b) * H + k], tol)
                        << what << " at d=" << d << " b=" << b << " k=" << k;
                }
    };
    check_last(y_h, e.y_h, "y_h");
    if (lstm) check_last(realize(res.y_c), e.y_c, "y_c");
}

RecurrentOptions options(RecurrentCell cell, RecurrentDirection dir) {
    RecurrentOptions o;
    o.cell = cell;
    o.direction = dir;
    return o;
}

TEST(NNRecurrent, BidirectionalLstmWithPeepholesAndSequenceLengths) {
    check(make_layer(options(RecurrentCell::LSTM, RecurrentDirection::Bidirectional), 7, 3, 5, 13,
                     {7, 4, 1}, 10));
}

TEST(NNRecurrent, ReverseLstmBatchMajorWithCoupledGatesClipAndOtherActivations) {
    RecurrentOptions o = options(RecurrentCell::LSTM, RecurrentDirection::Reverse);
    o.batch_major = true;
    o.input_forget = true;
    o.clip = 0.75f;
    o.activations = {{"HardSigmoid", 0.3f, 0.4f}, {"ScaledTanh", 0.9f, 1.2f}, {"Softsign"}};
    check(make_layer(o, 6, 2, 4, 9, {6, 2}, 20));
}

// Five sequences: a group of four and one more (sequences share R's blocks in fours).
TEST(NNRecurrent, GruResetBeforeAndAfterTheProduct) {
    for (bool linear_before_reset : {false, true}) {
        for (RecurrentDirection dir : {RecurrentDirection::Forward, RecurrentDirection::Reverse,
                                       RecurrentDirection::Bidirectional}) {
            SCOPED_TRACE(::testing::Message() << "linear_before_reset " << linear_before_reset
                                              << ", direction " << int(dir));
            RecurrentOptions o = options(RecurrentCell::GRU, dir);
            o.linear_before_reset = linear_before_reset;
            check(make_layer(o, 5, 5, 6, 11, {5, 3, 2, 4, 1}, 30 + int(dir)));
        }
    }
}

TEST(NNRecurrent, RnnWithTwoSetsOfActivationsAndNoLengths) {
    RecurrentOptions o = options(RecurrentCell::RNN, RecurrentDirection::Bidirectional);
    o.batch_major = true;
    o.activations = {{"Relu"}, {"LeakyRelu", 0.2f}};
    check(make_layer(o, 4, 2, 3, 17, {}, 40));
}

TEST(NNRecurrent, WrongActivationsAreNamed) {
    RecurrentOptions o = options(RecurrentCell::GRU, RecurrentDirection::Forward);
    o.activations = {{"Sigmoid"}};
    Layer l = make_layer(o, 2, 1, 2, 3, {}, 50);
    std::string msg = message_of<CompileError>(
        [&] { nn::recurrent(l.o, nn::Tensor(l.x), nn::Tensor(l.w), nn::Tensor(l.r)); });
    EXPECT_NE(msg.find("GRU: 1 activations given; it takes 2 per direction"), std::string::npos)
        << msg;
    o.activations = {{"Sigmoid"}, {"Swish"}};
    msg = message_of<CompileError>(
        [&] { nn::recurrent(o, nn::Tensor(l.x), nn::Tensor(l.w), nn::Tensor(l.r)); });
    EXPECT_NE(msg.find("GRU: unknown activation \"Swish\""), std::string::npos) << msg;
}

/// A bidirectional LSTM of hidden size `H` over x [T, N, I] (T and N symbolic) with the
/// weights of `l`, its Y transposed to [T, N, 2, H] as a CRNN does ("yt"); the model returns
/// `outputs` of yt, y_h and y_c.
onnx::ModelProto lstm_model(const Layer &l, int H, int I, const std::vector<std::string> &outputs) {
    auto values = [](const Buffer<float> &b) {
        std::vector<float> v;
        b.for_each_value([&](float x) { v.push_back(x); });
        return v;
    };
    onnx::ModelProto m = dsl_test::make_model(14);
    dsl_test::add_input(m, "x", onnx::TensorProto::FLOAT, {"T", "N", I});
    for (const std::string &o : outputs) {
        if (o == "yt")
            dsl_test::add_output(m, o, onnx::TensorProto::FLOAT, {"T", "N", 2, H});
        else
            dsl_test::add_output(m, o, onnx::TensorProto::FLOAT, {2, "N", H});
    }
    dsl_test::add_float_initializer(m, "w", {2, 4 * H, I}, values(l.w));
    dsl_test::add_float_initializer(m, "r", {2, 4 * H, H}, values(l.r));
    dsl_test::add_float_initializer(m, "b", {2, 8 * H}, values(l.b));
    onnx::NodeProto *n = dsl_test::add_node(m, "LSTM", {"x", "w", "r", "b"}, {"y", "y_h", "y_c"});
    dsl_test::add_int_attr(n, "hidden_size", H);
    auto *direction = n->add_attribute();
    direction->set_name("direction");
    direction->set_type(onnx::AttributeProto::STRING);
    direction->set_s("bidirectional");
    dsl_test::add_ints_attr(dsl_test::add_node(m, "Transpose", {"y"}, {"yt"}), "perm",
                            {0, 2, 1, 3});
    return m;
}

// A bidirectional LSTM read from an ONNX file: one compile runs two lengths, and each output
// matches the operator's. The recurrence runs once, in a kernel of its own ("y/states"), which
// the kernels of Y, Y_h and Y_c read (each computed it again before).
TEST(NNRecurrent, OnnxLstmOfSymbolicLengthRunsAtTwoLengths) {
    const int H = 6, I = 4;
    Layer l = make_layer(options(RecurrentCell::LSTM, RecurrentDirection::Bidirectional), 1, 1, I,
                         H, {}, 60);
    test::TempDirectory dir;
    dsl_test::save_model(lstm_model(l, H, I, {"yt", "y_h", "y_c"}), dir.path() + "/lstm.onnx");
    nn::Model model = nn::Model::load(dir.path() + "/lstm.onnx");
    const int compiled = model.compiled_pipelines();
    for (auto [steps, batch] : {std::pair{3, 2}, std::pair{6, 1}}) {
        Buffer<float> x = random_buffer({I, batch, steps}, 61 + steps);
        auto out = model.run({{"x", x}});
        nn::RecurrentResult want =
            nn::recurrent(l.o, nn::Tensor(x), nn::Tensor(l.w), nn::Tensor(l.r), nn::Tensor(l.b));
        Buffer<float> y = realize(want.y), y_h = realize(want.y_h), y_c = realize(want.y_c);
        Buffer<float> yt = out.at("yt"), got_h = out.at("y_h"), got_c = out.at("y_c");
        ASSERT_EQ(yt.extent(3), steps);
        ASSERT_EQ(yt.extent(2), batch);
        y.for_each_element([&](const int *p) {
            ASSERT_NEAR(yt(p[0], p[2], p[1], p[3]), y(p[0], p[1], p[2], p[3]), 1e-6);
        });
        y_h.for_each_element([&](const int *p) {
            ASSERT_NEAR(got_h(p[0], p[1], p[2]), y_h(p[0], p[1], p[2]), 1e-6);
        });
        y_c.for_each_element([&](const int *p) {
            ASSERT_NEAR(got_c(p[0], p[1], p[2]), y_c(p[0], p[1], p[2]), 1e-6);
        });
        std::vector<std::string> steps_run;
        for (const nn::StepReport &s : model.last_run())
            steps_run.push_back(s.output);
        EXPECT_EQ(steps_run, (std::vector<std::string>{"y/states", "y", "y_h", "y_c", "yt"}));
    }
    EXPECT_EQ(model.compiled_pipelines(), compiled);
    EXPECT_EQ(compiled, 5);
}

// As PyTorch exports an LSTM: the node names Y_h and Y_c, which nothing reads. Only Y's kernel
// and the Transpose's are compiled, not kernels for Y_h and Y_c (each would run the whole
// recurrence again).
TEST(NNRecurrent, OutputsNothingReadsAreNotCompiled) {
    const int H = 5, I = 3;
    Layer l = make_layer(options(RecurrentCell::LSTM, RecurrentDirection::Bidirectional), 1, 1, I,
                         H, {}, 70);
    test::TempDirectory dir;
    dsl_test::save_model(lstm_model(l, H, I, {"yt"}), dir.path() + "/lstm.onnx");
    nn::Model model = nn::Model::load(dir.path() + "/lstm.onnx");
    EXPECT_EQ(model.compiled_pipelines(), 2);
    Buffer<float> x = random_buffer({I, 2, 4}, 71);
    Buffer<float> yt = model.run({{"x", x}}).at("yt");
    nn::RecurrentResult want =
        nn::recurrent(l.o, nn::Tensor(x), nn::Tensor(l.w), nn::Tensor(l.r), nn::Tensor(l.b));
    Buffer<float> y = realize(want.y);
    y.for_each_element([&](const int *p) {
        ASSERT_NEAR(yt(p[0], p[2], p[1], p[3]), y(p[0], p[1], p[2], p[3]), 1e-6);
    });
}

}  // namespace
}  // namespace dsl::test
