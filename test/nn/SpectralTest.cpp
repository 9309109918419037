// DFT, STFT and MelWeightMatrix against plain C++ loops in double precision: real and complex
// signals, a middle axis, lengths that cut and pad, inverse, one-sided, windows.
#include <cmath>
#include <complex>

#include "NNTestUtil.h"
#include "common/ErrorCheck.h"
#include "dsl/nn/Spectral.h"

namespace dsl::test {
namespace {

using cd = std::complex<double>;

/// x is [A, N, C, parts] (buffer (parts, C, N, A)); the transform along axis 1 of length n.
void check_dft(int parts, int given, int n, bool inverse, bool onesided) {
    const int A = 2, C = 3;
    Buffer<float> x = random_buffer({parts, C, given, A}, 100 + given + n);
    nn::Tensor y = nn::dft(nn::Tensor(x, "x"), 1, inverse, onesided, n == given ? Expr() : Expr(n));
    Buffer<float> out = realize(y);
    const int bins = onesided ? n / 2 + 1 : n;
    ASSERT_EQ(out.extent(2), bins);
    ASSERT_EQ(out.extent(0), 2);
    for (int a = 0; a < A; a++)
        for (int c = 0; c < C; c++)
            for (int k = 0; k < bins; k++) {
                cd sum = 0;
                for (int m = 0; m < std::min(given, n); m++) {
                    const cd v(x(0, c, m, a), parts == 2 ? x(1, c, m, a) : 0.0f);
                    const double angle = (inverse ? 2 : -2) * M_PI * double(k) * m / n;
                    sum += v * cd(std::cos(angle), std::sin(angle));
                }
                if (inverse) sum /= n;
                ASSERT_NEAR(out(0, c, k, a), sum.real(), 1e-4)
                    << "real part at a=" << a << " c=" << c << " k=" << k;
                ASSERT_NEAR(out(1, c, k, a), sum.imag(), 1e-4)
                    << "imaginary part at a=" << a << " c=" << c << " k=" << k;
            }
}

TEST(NNSpectral, DftOfRealAndComplexSignalsAlongAMiddleAxis) {
    check_dft(1, 12, 12, false, false);
    check_dft(2, 12, 12, false, false);
    check_dft(2, 12, 12, true, false);
    check_dft(1, 12, 12, false, true);
    check_dft(1, 9, 9, false, true);
}

TEST(NNSpectral, DftLengthCutsAndPadsTheSignal) {
    check_dft(1, 12, 8, false, false);
    check_dft(2, 7, 10, false, false);
    check_dft(2, 7, 10, true, false);
}

TEST(NNSpectral, StftWithAWindowMatchesFramesTransformed) {
    const int B = 2, L = 50, frame = 12, step = 5;
    Buffer<float> signal = random_buffer({1, L, B}, 7);
    Buffer<float> window(frame);
    for (int i = 0; i < frame; i++)
        window(i) = float(0.5 - 0.5 * std::cos(2 * M_PI * i / frame));
    for (bool with_window : {false, true}) {
        nn::Tensor s = nn::stft(nn::Tensor(signal, "signal"), Expr(step),
                                with_window ? nn::Tensor(window, "window") : nn::Tensor(),
                                with_window ? Expr() : Expr(frame), true);
        Buffer<float> out = realize(s);
        const int frames = (L - frame) / step + 1, bins = frame / 2 + 1;
        ASSERT_EQ(out.extent(2), frames);
        ASSERT_EQ(out.extent(1), bins);
        for (int b = 0; b < B; b++)
            for (int f = 0; f < frames; f++)
                for (int k = 0; k < bins; k++) {
                    cd sum = 0;
                    for (int m = 0; m < frame; m++) {
                        const double w = with_window ? window(m) : 1.0;
                        const double angle = -2 * M_PI * double(k) * m / frame;
                        sum +=
                            signal(0, f * step + m, b) * w * cd(std::cos(angle), std::sin(angle));
                    }
                    ASSERT_NEAR(out(0, k, f, b), sum.real(), 1e-4)
                        << "b=" << b << " f=" << f << " k=" << k;
                    ASSERT_NEAR(out(1, k, f, b), sum.imag(), 1e-4)
                        << "b=" << b << " f=" << f << " k=" << k;
                }
    }
}

TEST(NNSpectral, MelWeightMatrixHasTrianglesPeakingAtOne) {
    const int mels = 10, length = 64, rate = 16000;
    const double lower = 100, upper = 7000;
    Buffer<float> w = realize(
        nn::mel_weight_matrix(Expr(mels), Expr(length), Expr(rate), Expr(lower), Expr(upper)));
    ASSERT_EQ(w.extent(1), length / 2 + 1);
    ASSERT_EQ(w.extent(0), mels);
    auto mel = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
    const double step = (mel(upper) - mel(lower)) / (mels + 2);
    std::vector<int> edge(mels + 2);
    for (int i = 0; i < mels + 2; i++) {
        const double hz = 700 * (std::pow(10.0, (i * step + mel(lower)) / 2595) - 1);
        edge[i] = static_cast<int>(std::floor((length + 1) * hz / rate));
    }
    for (int m = 0; m < mels; m++) {
        const int l = edge[m], c = edge[m + 1], h = edge[m + 2];
        for (int j = 0; j <= length / 2; j++) {
            double want = 0;
            if (c == l) {
                want = j == c ? 1 : 0;
            } else if (l <= j && j <= c) {
                want = double(j - l) / (c - l);
            }
            if (h > c && c <= j && j < h) want = double(h - j) / (h - c);
            ASSERT_NEAR(w(m, j), want, 1e-6) << "bin " << j << " of filter " << m;
        }
        EXPECT_NEAR(w(m, c), 1.0, 1e-6) << "filter " << m << " peaks at its centre";
    }
}

TEST(NNSpectral, ErrorsNameTheTensor) {
    Buffer<float> x = random_buffer({3, 4, 5}, 1);
    std::string msg = message_of<CompileError>([&] { nn::dft(nn::Tensor(x, "signal3"), 1); });
    EXPECT_NE(msg.find("signal3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("one value (real) or two (complex)"), std::string::npos) << msg;
    Buffer<float> y = random_buffer({2, 4, 5}, 1);
    msg = message_of<CompileError>([&] { nn::dft(nn::Tensor(y, "signal2"), -1); });
    EXPECT_NE(msg.find("choose another"), std::string::npos) << msg;
}

}  // namespace
}  // namespace dsl::test
