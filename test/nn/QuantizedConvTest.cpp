// TFLite's int8 convolution (nn::quantized_conv), its sum on the NPU (host-npu) and all of it on
// the CPU, byte-identical to a plain C++ loop of TFLite's arithmetic written out here: strides 1
// and 2, 1x1 and 3x3, padding with a non-zero zero point, per-channel multipliers and shifts of
// both signs, a bias, and channel counts that 16 does not divide.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <type_traits>

#include "NNTestUtil.h"
#include "common/ErrorCheck.h"
#include "dsl/nn/Conv.h"
#include "dsl/nn/Quantize.h"

using namespace dsl;

namespace {

template <typename T>
Buffer<T> random_ints(const std::vector<int> &sizes, unsigned seed, int lo, int hi) {
    Buffer<T> b(sizes);
    std::mt19937 rng(seed);
    b.for_each_value([&](T &v) { v = static_cast<T>(lo + int(rng() % unsigned(hi - lo + 1))); });
    return b;
}

using test::rescale;

struct Case {
    int n, c, h, w, m, k, stride, pad;
    bool depthwise = false;  // groups = c = m
};

struct Data {
    Buffer<int8_t> x, weights;
    Buffer<int32_t> bias, multiplier, shift;
    int32_t zx = -3, zy = 5;
};

Data make_data(const Case &k, unsigned seed) {
    Data d;
    d.x = random_ints<int8_t>({k.w, k.h, k.c, k.n}, seed, -128, 127);
    d.weights = random_ints<int8_t>({k.k, k.k, k.depthwise ? 1 : k.c, k.m}, seed + 1, -128, 127);
    d.bias = random_ints<int32_t>({k.m}, seed + 2, -20000, 20000);
    d.multiplier = random_ints<int32_t>({k.m}, seed + 3, 1 << 30, INT32_MAX);
    d.shift = random_ints<int32_t>({k.m}, seed + 4, -12, 1);
    return d;
}

Buffer<int8_t> reference(const Case &k, const Data &d) {
    const int oh = (k.h + 2 * k.pad - k.k) / k.stride + 1,
              ow = (k.w + 2 * k.pad - k.k) / k.stride + 1;
    Buffer<int8_t> y(ow, oh, k.m, k.n);
    for (int n = 0; n < k.n; n++)
        for (int m = 0; m < k.m; m++)
            for (int i = 0; i < oh; i++)
                for (int j = 0; j < ow; j++) {
                    int32_t acc = d.bias(m);
                    for (int c = k.depthwise ? m : 0; c < (k.depthwise ? m + 1 : k.c); c++)
                        for (int a = 0; a < k.k; a++)
                            for (int b = 0; b < k.k; b++) {
                                const int yy = i * k.stride - k.pad + a,
                                          xx = j * k.stride - k.pad + b;
                                const bool in = yy >= 0 && yy < k.h && xx >= 0 && xx < k.w;
                                const int32_t v = in ? d.x(xx, yy, c, n) : d.zx;
                                acc +=
                                    (v - d.zx) * int32_t(d.weights(b, a, k.depthwise ? 0 : c, m));
                            }
                    const int32_t r = d.zy + rescale(acc, d.multiplier(m), d.shift(m));
                    y(j, i, m, n) = static_cast<int8_t>(std::max(-128, std::min(127, r)));
                }
    return y;
}

Buffer<int8_t> run(const Case &k, const Data &d, const Target &target) {
    nn::Window win;
    win.strides = {k.stride, k.stride};
    win.pads_begin = {Expr(k.pad), Expr(k.pad)};
    win.pads_end = {Expr(k.pad), Expr(k.pad)};
    nn::Requantization q;
    q.input_zero_point = d.zx;
    q.output_zero_point = d.zy;
    q.multiplier = nn::Tensor(Buffer<>(d.multiplier), "multiplier");
    q.shift = nn::Tensor(Buffer<>(d.shift), "shift");
    nn::Tensor y =
        nn::quantized_conv(nn::Tensor(Buffer<>(d.x), "x"), nn::Tensor(Buffer<>(d.weights), "w"),
                           nn::Tensor(Buffer<>(d.bias), "bias"), win, q, k.depthwise ? k.c : 1);
    nn::schedule_output(y, target);
    const int oh = (k.h + 2 * k.pad - k.k) / k.stride + 1,
              ow = (k.w + 2 * k.pad - k.k) / k.stride + 1;
    Buffer<int8_t> out(ow, oh, k.m, k.n);
    y.func().realize(out, target);
    return out;
}

int differences(const Buffer<int8_t> &a, const Buffer<int8_t> &b) {
    int wrong = 0;
    a.for_each_element([&](const int *p) {
        if (a(p[0], p[1], p[2], p[3]) != b(p[0], p[1], p[2], p[3])) wrong++;
    });
    return wrong;
}

}  // namespace

TEST(NNQuantizedConv, MatchesTFLiteOnTheNPUAndTheCPU) {
    for (Case k : {Case{2, 16, 9, 9, 24, 3, 1, 1}, Case{1, 20, 11, 7, 16, 3, 2, 1},
                   Case{1, 32, 6, 6, 40, 1, 1, 0}, Case{1, 3, 8, 8, 5, 3, 1, 0}}) {
        const std::string what = std::to_string(k.c) + "->" + std::to_string(k.m) + " " +
                                 std::to_string(k.k) + "x" + std::to_string(k.k) + " stride " +
                                 std::to_string(k.stride);
        Data d = make_data(k, 21);
        const Buffer<int8_t> want = reference(k, d);
        EXPECT_EQ(differences(run(k, d, get_host_target()), want), 0) << "CPU " << what;
        npu_reset_stats();
        EXPECT_EQ(differences(run(k, d, Target("host-npu")), want), 0) << "NPU " << what;
        // Two programs: the sum on the GEMM core, the requantization on the ALU.
        const NPUStats s = npu_total_stats();
        EXPECT_GT(s.macs, 0u) << what;
        // Per ACC row (a pixel's block of 16 channels): the high multiply, the right shift, the
        // clamp's two ends, the zero point's add, and a left shift if any channel has one.
        const int oh = (k.h + 2 * k.pad - k.k) / k.stride + 1,
                  ow = (k.w + 2 * k.pad - k.k) / k.stride + 1;
        bool left = false;
        for (int c = 0; c < k.m; c++)
            left = left || d.shift(c) > 0;
        const unsigned ops = 4 + (d.zy != 0) + left;
        EXPECT_EQ(s.alu_rows, ops * k.n * oh * ow * ((k.m + 15) / 16)) << what;
    }
}

TEST(NNQuantizedConv, AUint8ResultIsTheInt8OneShiftedAndTheNPUStoresIt) {
    // A uint8 model's layer: int8 arithmetic, requantized to uint8 with its zero point and
    // range 128 higher, which gives the int8 result plus 128.
    const Case k{1, 16, 9, 9, 24, 3, 1, 1};
    Data d = make_data(k, 33);
    const Buffer<int8_t> want = reference(k, d);
    nn::Window win;
    win.strides = {1, 1};
    win.pads_begin = {Expr(1), Expr(1)};
    win.pads_end = {Expr(1), Expr(1)};
    nn::Requantization q;
    q.input_zero_point = d.zx;
    q.output_zero_point = d.zy + 128;
    q.min = 0;
    q.max = 255;
    q.type = UInt(8);
    q.multiplier = nn::Tensor(Buffer<>(d.multiplier), "multiplier");
    q.shift = nn::Tensor(Buffer<>(d.shift), "shift");
    auto conv = [&](const nn::Requantization &r) {
        return nn::quantized_conv(nn::Tensor(Buffer<>(d.x), "x"),
                                  nn::Tensor(Buffer<>(d.weights), "w"),
                                  nn::Tensor(Buffer<>(d.bias), "bias"), win, r);
    };
    for (const char *t : {"host", "host-npu"}) {
        const Target target(t);
        nn::Tensor y = conv(q);
        ASSERT_EQ(y.type(), UInt(8));
        nn::schedule_output(y, target);
        Buffer<uint8_t> out(9, 9, 24, 1);
        npu_reset_stats();
        y.func().realize(out, target);
        int wrong = 0;
        out.for_each_element([&](int i, int j, int c, int n) {
            wrong += int(out(i, j, c, n)) != int(want(i, j, c, n)) + 128;
        });
        EXPECT_EQ(wrong, 0) << t;
        // On the NPU, the STORE writes the result's bytes (whole rows of 16 channels: 24 take
        // 32) and nothing else goes back.
        if (target.has_feature(Target::NPU)) {
            EXPECT_EQ(npu_total_stats().dram_bytes_written, 9u * 9u * 32u);
        }
    }
    nn::Requantization wide = q;
    wide.type = Int(16);
    EXPECT_CONTAINS(test::message_of([&] { conv(wide); }), "must be int8 or uint8, not int16");
    nn::Requantization below = q;
    below.min = -1;
    EXPECT_CONTAINS(test::message_of([&] { conv(below); }), "clamps to [-1, 255]");
}

TEST(NNQuantizedConv, DepthwiseMapsChannelsOntoDiagonalBlocks) {
    for (Case k : {Case{1, 20, 9, 11, 20, 3, 1, 1, true}, Case{2, 32, 8, 8, 32, 3, 2, 1, true},
                   Case{1, 5, 6, 6, 5, 3, 1, 0, true}}) {
        const std::string what =
            "depthwise " + std::to_string(k.c) + " stride " + std::to_string(k.stride);
        Data d = make_data(k, 31);
        const Buffer<int8_t> want = reference(k, d);
        EXPECT_EQ(differences(run(k, d, get_host_target()), want), 0) << "CPU " << what;
        npu_reset_stats();
        EXPECT_EQ(differences(run(k, d, Target("host-npu")), want), 0) << "NPU " << what;
        // One GEMM step per output pixel, block of 16 channels and tap.
        const int oh = (k.h + 2 * k.pad - k.k) / k.stride + 1,
                  ow = (k.w + 2 * k.pad - k.k) / k.stride + 1;
        EXPECT_EQ(npu_total_stats().gemm_steps,
                  uint64_t(k.n) * oh * ow * ((k.c + 15) / 16) * k.k * k.k)
            << what;
    }
}

TEST(NNQuantizedConv, A3x3ConvOf56x56x64Into64OnTheNPU) {
    const Case k{1, 64, 56, 56, 64, 3, 1, 1};
    Data d = make_data(k, 5);
    npu_reset_stats();
    const Buffer<int8_t> npu = run(k, d, Target("host-npu"));
    // One program: the sum on the GEMM core, each tile requantized on the ALU before its store.
    const NPUStats s = npu_total_stats();
    std::printf(
        "quantized_conv 3x3, 56x56x64 -> 64 on the NPU: %llu cycles, GEMM %.1f%%, %llu "
        "ALU rows\n%s",
        static_cast<unsigned long long>(s.cycles), 100 * s.gemm_utilisation,
        static_cast<unsigned long long>(s.alu_rows), s.report.c_str());
    EXPECT_EQ(s.alu_rows, 6u * 56 * 56 * (64 / 16));
    EXPECT_EQ(s.gemm_steps, 56u * 56 * (64 / 16) * (64 * 9 / 16));
    EXPECT_EQ(differences(npu, run(k, d, get_host_target())), 0);
}

TEST(NNQuantizedMatmul, MatchesTFLiteOnTheNPUAndTheCPU) {
    const int m = 37, k = 70, n = 29;
    const int32_t za = 11, zy = -4;
    Buffer<int8_t> a = random_ints<int8_t>({k, m}, 41, -128, 127),
                   b = random_ints<int8_t>({n, k}, 42, -128, 127);
    Buffer<int32_t> bias = random_ints<int32_t>({n}, 43, -5000, 5000),
                    mult = random_ints<int32_t>({n}, 44, 1 << 30, INT32_MAX),
                    shift = random_ints<int32_t>({n}, 45, -12, 1);
    Buffer<int8_t> want(n, m);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            int32_t acc = bias(j);
            for (int q = 0; q < k; q++)
                acc += (int32_t(a(q, i)) - za) * int32_t(b(j, q));
            want(j, i) = static_cast<int8_t>(
                std::max(-128, std::min(127, zy + rescale(acc, mult(j), shift(j)))));
        }
    for (const Target &target : {get_host_target(), Target("host-npu")}) {
        nn::Requantization q;
        q.input_zero_point = za;
        q.output_zero_point = zy;
        q.multiplier = nn::Tensor(Buffer<>(mult), "multiplier");
        q.shift = nn::Tensor(Buffer<>(shift), "shift");
        nn::Tensor y =
            nn::quantized_matmul(nn::Tensor(Buffer<>(a), "a"), nn::Tensor(Buffer<>(b), "b"),
                                 nn::Tensor(Buffer<>(bias), "bias"), q);
        nn::schedule_output(y, target);
        Buffer<int8_t> got(n, m);
        y.func().realize(got, target);
        int wrong = 0;
        got.for_each_element([&](int x, int yy) { wrong += got(x, yy) != want(x, yy); });
        EXPECT_EQ(wrong, 0) << target.to_string();
    }
}

namespace {

/// integer_matmul of a (batch x m x k) and b (k x n) realized for `target`, against a loop.
template <typename A, typename B>
void check_integer_matmul(int batch, int m, int k, int n, bool a_zero, bool b_per_column,
                          const Target &target, bool b_constant = true, bool symmetric = false) {
    const int lo_a = std::is_signed<A>::value ? -128 : 0,
              lo_b = std::is_signed<B>::value ? -128 : 0;
    Buffer<A> a = random_ints<A>({k, m, batch}, 51 + k, lo_a, lo_a + 255);
    Buffer<B> b = random_ints<B>({n, k}, 52 + n, lo_b, lo_b + 255);
    // The extremes in the first row and column: no saturation anywhere.
    for (int q = 0; q < k; q++) {
        a(q, 0, 0) = static_cast<A>(lo_a + 255);
        b(0, q) = static_cast<B>(lo_b);
    }
    Buffer<A> za = random_ints<A>({m}, 53, lo_a, lo_a + 255);
    Buffer<B> zb = random_ints<B>({b_per_column ? n : 1}, 54, lo_b, lo_b + 255);
    if (symmetric) zb.fill(0);  // no row sums needed
    nn::Tensor ta(Buffer<>(a), "a"), tb(Buffer<>(b), "b");
    // A constant B is packed when the pipeline is built; any other in the pipeline.
    if (!b_constant) tb = nn::Tensor(tb.func(), tb.shape());
    nn::Tensor y =
        nn::integer_matmul(ta, tb, a_zero ? nn::Tensor(Buffer<>(za), "za") : nn::Tensor(),
                           nn::Tensor(Buffer<>(zb), "zb"));
    nn::schedule_output(y, target);
    Buffer<int32_t> got(n, m, batch);
    y.func().realize(got, target);
    int wrong = 0;
    for (int c = 0; c < batch; c++)
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                int32_t want = 0;
                for (int q = 0; q < k; q++) {
                    int32_t x = int32_t(a(q, i, c)) - (a_zero ? int32_t(za(i)) : 0);
                    want += x * (int32_t(b(j, q)) - int32_t(zb(b_per_column ? j : 0)));
                }
                wrong += got(j, i, c) != want;
            }
    EXPECT_EQ(wrong, 0) << target.to_string() << ": " << batch << "x" << m << "x" << k << " by "
                        << k << "x" << n;
}

}  // namespace

// Every pair of byte types, K with and without a multiple of 4, tiles past the last row and
// column, zero points per row and per column, a batch: on the host (vpdpbusd where it has
// avx512_vnni) and on AVX2 (vpmaddwd).
TEST(NNIntegerMatmul, EveryByteTypeAndZeroPointMatchesALoop) {
    std::vector<Target> targets{get_host_target()};
    if (get_host_target().has_feature(Target::Feature::AVX2))
        targets.push_back(Target("x86-64-linux-avx2"));
    for (const Target &t : targets) {
        check_integer_matmul<uint8_t, int8_t>(1, 37, 64, 45, true, true, t);
        check_integer_matmul<uint8_t, uint8_t>(2, 9, 70, 33, true, false, t);
        check_integer_matmul<int8_t, int8_t>(1, 20, 13, 16, false, true, t);
        check_integer_matmul<int8_t, uint8_t>(1, 3, 8, 70, true, true, t);
        check_integer_matmul<uint8_t, int8_t>(1, 37, 64, 45, true, true, t, false);
        check_integer_matmul<uint8_t, uint8_t>(2, 9, 70, 33, false, true, t, false);
        check_integer_matmul<int8_t, int8_t>(1, 21, 36, 40, true, false, t, true, true);
    }
}

namespace {

/// The assembly of `y` scheduled and compiled for AVX-512 with VNNI.
std::string vnni_assembly(const nn::Tensor &y, const std::string &name) {
    Target vnni("x86-64-linux-avx512-avx512_vnni");
    nn::schedule_output(y, vnni);
    std::string path = ::testing::TempDir() + name + ".s";
    Func f = y.func();
    f.compile_to_assembly(path, vnni);
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

TEST(NNIntegerMatmul, IsVpdpbusdWithVnni) {
    Buffer<uint8_t> a(64, 16);
    Buffer<int8_t> b(32, 64);
    nn::Tensor y = nn::integer_matmul(nn::Tensor(Buffer<>(a), "a"), nn::Tensor(Buffer<>(b), "b"),
                                      nn::Tensor(), nn::Tensor());
    const std::string text = vnni_assembly(y, "dsl_integer_matmul");
    EXPECT_NE(text.find("vpdpbusd"), std::string::npos);
}

namespace {

/// integer_conv of x (1 x c x h x w) by a constant k x k kernel into m channels, realized for
/// `target`, against a loop of ONNX's ConvInteger arithmetic (plus a bias). With `through_param`,
/// x is read through an ImageParam (its height and width not known when compiling, as a
/// model's), its channels declared.
template <typename X, typename W>
void check_integer_conv(int c, int h, int w, int m, int k, int stride, int pad, bool per_channel,
                        const Target &target, bool symmetric = false, bool through_param = false) {
    const int lo_x = std::is_signed<X>::value ? -128 : 0,
              lo_w = std::is_signed<W>::value ? -128 : 0;
    Buffer<X> x = random_ints<X>({w, h, c, 1}, 61 + c, lo_x, lo_x + 255);
    Buffer<W> wt = random_ints<W>({k, k, c, m}, 62 + m, lo_w, lo_w + 255);
    Buffer<X> zx = random_ints<X>({1}, 63, lo_x, lo_x + 255);
    Buffer<W> zw = random_ints<W>({per_channel ? m : 1}, 64, lo_w, lo_w + 255);
    if (symmetric) zw.fill(0);  // no window sums needed
    Buffer<int32_t> bias = random_ints<int32_t>({m}, 65, -1000, 1000);
    nn::Window win;
    win.kernel = {k, k};
    win.strides = {stride, stride};
    win.pads_begin = {Expr(pad), Expr(pad)};
    win.pads_end = {Expr(pad), Expr(pad)};
    nn::Tensor tx(Buffer<>(x), "x"), tw(Buffer<>(wt), "w");
    ImageParam param(type_of<X>(), 4, "x");
    if (through_param) {
        param.set(x);
        nn::Tensor t(param);
        nn::Shape shape = t.shape();
        shape[0] = Expr(1);
        shape[1] = Expr(c);
        tx = nn::Tensor(t.func(), shape);
    }
    ASSERT_TRUE(nn::integer_conv_applies(tx, tw, nn::Tensor(Buffer<>(zx), "zx"), win, 1));
    nn::Tensor y =
        nn::integer_conv(tx, tw, nn::Tensor(Buffer<>(zx), "zx"), nn::Tensor(Buffer<>(zw), "zw"),
                         nn::Tensor(Buffer<>(bias), "bias"), win);
    nn::schedule_output(y, target);
    const int oh = (h + 2 * pad - k) / stride + 1, ow = (w + 2 * pad - k) / stride + 1;
    Buffer<int32_t> got(ow, oh, m, 1);
    y.func().realize(got, target);
    int wrong = 0;
    for (int o = 0; o < m; o++)
        for (int oy = 0; oy < oh; oy++)
            for (int ox = 0; ox < ow; ox++) {
                int32_t want = bias(o);
                for (int ch = 0; ch < c; ch++)
                    for (int ky = 0; ky < k; ky++)
                        for (int kx = 0; kx < k; kx++) {
                            int iy = oy * stride - pad + ky, ix = ox * stride - pad + kx;
                            bool in = iy >= 0 && iy < h && ix >= 0 && ix < w;
                            int32_t xv = in ? int32_t(x(ix, iy, ch, 0)) : int32_t(zx(0));
                            want += (xv - int32_t(zx(0))) *
                                    (int32_t(wt(kx, ky, ch, o)) - int32_t(zw(per_channel ? o : 0)));
                        }
                wrong += got(ox, oy, o, 0) != want;
            }
    EXPECT_EQ(wrong, 0) << target.to_string() << ": " << c << " -> " << m << ", " << k << "x" << k
                        << " stride " << stride << " pad " << pad;
}

}  // namespace

// Every pair of byte types; 1x1, 3x3 and 5x5, strides 1 and 2, padding read as the zero point,
// channel counts 4 does not divide, output channels and columns past a tile; on the host
// (vpdpbusd where it has avx512_vnni) and on AVX2 (vpmaddwd).
TEST(NNIntegerConv, EveryByteTypeKernelAndStrideMatchesALoop) {
    std::vector<Target> targets{get_host_target()};
    if (get_host_target().has_feature(Target::Feature::AVX2))
        targets.push_back(Target("x86-64-linux-avx2"));
    for (const Target &t : targets) {
        check_integer_conv<uint8_t, int8_t>(16, 9, 37, 24, 3, 1, 1, true, t);
        check_integer_conv<uint8_t, uint8_t>(6, 11, 20, 13, 1, 1, 0, false, t);
        check_integer_conv<int8_t, int8_t>(3, 13, 15, 8, 3, 2, 1, true, t);
        check_integer_conv<int8_t, uint8_t>(5, 8, 10, 30, 5, 1, 2, false, t);
        check_integer_conv<uint8_t, int8_t>(20, 10, 33, 16, 3, 2, 1, true, t, true);
    }
}

// Pointwise convolutions of 32 or more channels run over joined rows (JoinedRows.h): rows of 20
// and 23 points in blocks of several rows, rows longer than a block (170) in pieces, the last
// block past the map's last point, channel tiles of 14 (42 channels) and 9 (18), zero points
// other than 0 (the sums over a point's channels), and widths known or not when compiling.
TEST(NNIntegerConv, PointwiseOverJoinedRowsMatchesALoop) {
    std::vector<Target> targets{get_host_target()};
    if (get_host_target().has_feature(Target::Feature::AVX2))
        targets.push_back(Target("x86-64-linux-avx2"));
    for (const Target &t : targets) {
        check_integer_conv<uint8_t, int8_t>(40, 7, 20, 42, 1, 1, 0, true, t, true);
        check_integer_conv<uint8_t, uint8_t>(36, 5, 23, 18, 1, 1, 0, true, t);
        check_integer_conv<int8_t, int8_t>(33, 3, 170, 24, 1, 1, 0, false, t, false, true);
        check_integer_conv<uint8_t, int8_t>(64, 9, 20, 30, 1, 1, 0, true, t, true, true);
        check_integer_conv<int8_t, uint8_t>(48, 2, 1, 12, 1, 1, 0, false, t, false, true);
    }
}

// The packed input's words are read as their bytes (a bitcast, not shifts) by vpdpbusd: a 3x3
// window over rows, and a pointwise one over joined rows.
TEST(NNIntegerConv, IsVpdpbusdOnPackedWordsWithVnni) {
    for (int k : {3, 1}) {
        const int c = k == 1 ? 40 : 8;
        Buffer<uint8_t> x(20, 6, c, 1);
        Buffer<int8_t> w(k, k, c, 16);
        nn::Window win;
        win.kernel = {k, k};
        win.pads_begin = {Expr(k / 2), Expr(k / 2)};
        win.pads_end = {Expr(k / 2), Expr(k / 2)};
        nn::Tensor y = nn::integer_conv(nn::Tensor(Buffer<>(x), "x"), nn::Tensor(Buffer<>(w), "w"),
                                        nn::Tensor(), nn::Tensor(), nn::Tensor(), win);
        const std::string text = vnni_assembly(y, "dsl_integer_conv");
        EXPECT_NE(text.find("vpdpbusd"), std::string::npos) << k << "x" << k;
        // The words' bytes are their bits, not shifted out one at a time.
        EXPECT_EQ(text.find("vpsrl"), std::string::npos) << k << "x" << k;
        // Over joined rows, the tiles of points go straight to the output (one parallel loop
        // of blocks, no block computed apart and copied out); by rows, a loop of rows.
        EXPECT_EQ(text.find(".s0.task.task") != std::string::npos, k == 1) << k << "x" << k;
        EXPECT_EQ(text.find(".s0.rows.task") != std::string::npos, k == 3) << k << "x" << k;
        EXPECT_EQ(text.find("iconv_joined"), std::string::npos) << k << "x" << k;
        // Nor scatters: a vector of joined points is a dense vector of each channel (the
        // output's rows are constrained to follow one another, so no other version is made).
        if (k == 1) {
            EXPECT_EQ(text.find("vpscatter"), std::string::npos);
        }
    }
}

namespace {

/// integer_conv_sums of x (1 x c x h x w) by constant (or, with `computed`, pipeline-computed)
/// k x k weights in `groups` groups into m channels, against a loop of ConvInteger's arithmetic.
void check_grouped_integer_conv(int c, int m, int groups, int k, int stride, bool computed) {
    const int h = 11, w = 19, pad = k / 2, cg = c / groups, mg = m / groups;
    Buffer<uint8_t> x = random_ints<uint8_t>({w, h, c, 1}, 71 + c, 0, 255);
    Buffer<int8_t> wt = random_ints<int8_t>({k, k, cg, m}, 72 + m, -128, 127);
    Buffer<uint8_t> zx = random_ints<uint8_t>({1}, 73, 0, 255);
    Buffer<int8_t> zw = random_ints<int8_t>({m}, 74, -128, 127);
    Buffer<int32_t> bias = random_ints<int32_t>({m}, 75, -100000, 100000);
    nn::Window win;
    win.kernel = {k, k};
    win.strides = {stride, stride};
    win.pads_begin = {Expr(pad), Expr(pad)};
    win.pads_end = {Expr(pad), Expr(pad)};
    nn::Tensor tw(Buffer<>(wt), "w");
    // Computed weights: the same values through a Func, so the host conversion cannot apply.
    if (computed)
        tw = nn::compute("w_computed", tw.shape(), [&](const nn::Index &i) { return tw(i); });
    nn::Tensor y = nn::integer_conv_sums(
        nn::Tensor(Buffer<>(x), "x"), tw, nn::Tensor(Buffer<>(zx), "zx"),
        nn::Tensor(Buffer<>(zw), "zw"), nn::Tensor(Buffer<>(bias), "bias"), win, groups);
    nn::schedule_output(y, get_host_target());
    const int oh = (h + 2 * pad - k) / stride + 1, ow = (w + 2 * pad - k) / stride + 1;
    Buffer<int32_t> got(ow, oh, m, 1);
    y.func().realize(got);
    int wrong = 0;
    for (int o = 0; o < m; o++)
        for (int oy = 0; oy < oh; oy++)
            for (int ox = 0; ox < ow; ox++) {
                int32_t want = bias(o);
                for (int ch = 0; ch < cg; ch++)
                    for (int ky = 0; ky < k; ky++)
                        for (int kx = 0; kx < k; kx++) {
                            const int iy = oy * stride - pad + ky, ix = ox * stride - pad + kx;
                            const bool in = iy >= 0 && iy < h && ix >= 0 && ix < w;
                            const int32_t xv =
                                in ? int32_t(x(ix, iy, (o / mg) * cg + ch, 0)) : int32_t(zx(0));
                            want += (xv - int32_t(zx(0))) * (int32_t(wt(kx, ky, ch, o)) - zw(o));
                        }
                wrong += got(ox, oy, o, 0) != want;
            }
    EXPECT_EQ(wrong, 0) << c << " -> " << m << " in " << groups << " groups, " << k << "x" << k
                        << " stride " << stride << (computed ? ", computed weights" : "");
}

}  // namespace

// Depthwise and grouped convolutions, which integer_conv does not take: exact float32 sums with
// weights converted on the host (or in the pipeline when computed), padding read as the zero
// point, per-channel weight zero points, an int32 bias of large values.
TEST(NNIntegerConv, DepthwiseAndGroupedSumsMatchALoop) {
    check_grouped_integer_conv(16, 16, 16, 3, 1, false);
    check_grouped_integer_conv(16, 16, 16, 5, 2, false);
    check_grouped_integer_conv(12, 24, 4, 3, 1, false);
    check_grouped_integer_conv(8, 8, 8, 3, 1, true);
}
