// Random NPU-offloadable pipelines for the differential fuzzer (make_npu_case): an int8
// contraction of two int8 producers of the inputs in a random layout (each operand transposed
// or not; the rows read at a stride of 1 or 2; one contraction loop, or two as a convolution's
// taps), starting from zero or from a random int32 function of the output's coordinates, and
// read by a random epilogue or not. Its update runs on the NPU: all of it (npu_gemm), per block
// of rows (npu at an inner loop of a split, whose tail is guarded), or per chunk of the
// contraction (a host loop around the NPU's, which then accumulates); with random tile rows and
// copies; one case in five is depthwise (the output's x indexes both operands). Compared with
// the reference evaluator like every case.
#include <algorithm>
#include <random>
#include <sstream>

#include "RandomPipeline.h"
#include "common/PipelineCheck.h"

namespace dsl::fuzz {

namespace {

class NPUCaseBuilder {
  public:
    explicit NPUCaseBuilder(uint64_t seed) : rng_(seed * 0x9e3779b97f4a7c15ULL + 17) {
        c_.seed = seed;
    }

    FuzzCase build() {
        const int n = uni(1, 40), m = uni(1, 40), k1 = uni(1, 48);
        const bool conv = coin(0.35);  // a second contraction loop over taps
        const int k2 = conv ? uni(2, 3) : 1;
        const int stride = coin(0.25) ? 2 : 1;
        const bool a_transposed = coin(0.3), b_transposed = coin(0.3);

        Var x("x"), y("y");
        ImageParam in_a(Int(8), 2, "in_a"), in_b(Int(8), 2, "in_b");
        const uint64_t seed_a = rng_(), seed_b = rng_();
        const int aw = uni(3, 40), ah = uni(3, 40), bw = uni(3, 40), bh = uni(3, 40);
        Buffer<> ba = test::random_buffer(Int(8), {aw, ah}, seed_a),
                 bb = test::random_buffer(Int(8), {bw, bh}, seed_b);
        in_a.set(ba);
        in_b.set(bb);
        c_.inputs = {in_a, in_b};
        c_.input_buffers = {ba, bb};
        c_.input_read = {true, true};
        alg_ << "ImageParam in_a(Int(8), 2, \"in_a\"), in_b(Int(8), 2, \"in_b\");\n"
             << "in_a.set(test::random_buffer(Int(8), {" << aw << ", " << ah << "}, " << seed_a
             << "u));\n"
             << "in_b.set(test::random_buffer(Int(8), {" << bw << ", " << bh << "}, " << seed_b
             << "u));\n";
        // The operands: int8 functions of the inputs (through a boundary condition).
        Func ea = BoundaryConditions::repeat_edge(in_a), eb = BoundaryConditions::repeat_edge(in_b);
        alg_ << "Func ea = BoundaryConditions::repeat_edge(in_a), eb = "
                "BoundaryConditions::repeat_edge(in_b);\n";
        Func a("f0"), b("f1");
        define_operand(a, ea, x, y, "ea");
        define_operand(b, eb, x, y, "eb");

        // The contraction: c(n, m) = start; c(n, m) += a(...) * b(...).
        RDom r(0, k1, 0, k2, "r");
        Func c("f2");
        const bool zero = coin(0.5);
        c(x, y) = zero ? Expr(0) : x * 3 - y * 7 + 11;
        alg_ << "RDom rk(0, " << k1 << ", 0, " << k2 << ", \"r\");\n"
             << "Func f2(\"f2\");\n"
             << "f2(x, y) = " << (zero ? "0" : "x * 3 - y * 7 + 11") << ";\n";
        // a's coordinates: (k, row) or transposed; the row is y * stride + the tap.
        Expr k = r.x, row = y * stride + r.y;
        const std::string k_code = "rk.x", row_code = "y * " + std::to_string(stride) + " + rk.y";
        // Depthwise: the output's x (a channel) indexes a too, and the taps move along its rows.
        const bool depthwise = coin(0.2);
        if (depthwise) {
            k = x;
            row = y * stride + r.x + r.y;
        }
        const std::string ka_code = depthwise ? "x" : k_code;
        const std::string rowa_code =
            depthwise ? "y * " + std::to_string(stride) + " + rk.x + rk.y" : row_code;
        Expr a_call = a_transposed ? a(row, k) : a(k, row);
        // b's: (n, k') or transposed, k' = k + k1 * tap.
        Expr kb = r.x + k1 * r.y;
        const std::string kb_code = "rk.x + " + std::to_string(k1) + " * rk.y";
        Expr b_call = b_transposed ? b(kb, x) : b(x, kb);
        c(x, y) += cast<int32_t>(a_call) * cast<int32_t>(b_call);
        alg_ << "f2(x, y) += cast<int32_t>(f0("
             << (a_transposed ? rowa_code + ", " + ka_code : ka_code + ", " + rowa_code)
             << ")) * cast<int32_t>(f1(" << (b_transposed ? kb_code + ", x" : "x, " + kb_code)
             << "));\n";

        // A requantization of the sum (TFLite's, per x), on the NPU's ALU or the CPU, or none.
        const bool requantize = coin(0.35);
        if (requantize) {
            // Multipliers in [2^30, 2^31) and shifts in [-11, 2] per x, hashed from x (Funcs
            // computed first, so that the NPU reads them from memory).
            const uint32_t hm = static_cast<uint32_t>(rng_()), hs = static_cast<uint32_t>(rng_());
            const int zp = uni(-20, 20);
            Func fm("fm"), fs("fs");
            fm(x) = (1 << 30) + cast<int32_t>((cast<uint32_t>(x) * 2654435761u + hm) & 0x3fffffffu);
            fs(x) = cast<int32_t>((cast<uint32_t>(x) * 40503u + hs) % 14u) - 11;
            c(x, y) =
                clamp(zp + multiply_by_quantized_multiplier(c(x, y), fm(x), fs(x)), -128, 127);
            fm.compute_root();
            fs.compute_root();
            alg_ << "Func fm(\"fm\"), fs(\"fs\");\n"
                 << "fm(x) = (1 << 30) + cast<int32_t>((cast<uint32_t>(x) * 2654435761u + " << hm
                 << "u) & 0x3fffffffu);\n"
                 << "fs(x) = cast<int32_t>((cast<uint32_t>(x) * 40503u + " << hs
                 << "u) % 14u) - 11;\n"
                 << "f2(x, y) = clamp(" << zp
                 << " + multiply_by_quantized_multiplier(f2(x, y), fm(x), fs(x)), -128, 127);\n";
            sched_ << "fm.compute_root();\nfs.compute_root();\n";
        }

        // A random epilogue, or none; after a requantization, also a conversion to bytes
        // (which the NPU may store itself).
        Func out = c;
        const int epilogue = uni(0, requantize ? 3 : 2);
        const bool to_uint8 = coin(0.5);
        if (epilogue == 3) {
            Func e("f3");
            e(x, y) = cast(to_uint8 ? UInt(8) : Int(8), c(x, y));
            alg_ << "Func f3(\"f3\");\nf3(x, y) = cast<" << (to_uint8 ? "uint8_t" : "int8_t")
                 << ">(f2(x, y));\n";
            out = e;
        } else if (epilogue) {
            Func e("f3");
            e(x, y) = epilogue == 1 ? (c(x, y) >> 3) ^ x : c(x, y) * 2 - c(x, y) / 7;
            alg_ << "Func f3(\"f3\");\nf3(x, y) = "
                 << (epilogue == 1 ? "(f2(x, y) >> 3) ^ x" : "f2(x, y) * 2 - f2(x, y) / 7")
                 << ";\n";
            out = e;
        }

        // The schedule.
        a.compute_root();
        b.compute_root();
        sched_ << "f0.compute_root();\nf1.compute_root();\n";
        if (epilogue) {
            c.compute_root();
            sched_ << "f2.compute_root();\n";
        }
        Stage u = c.update();
        const int how = uni(0, 2);
        if (how == 0) {
            u.npu_gemm();
            sched_ << "f2.update().npu_gemm();\n";
        } else if (how == 1) {
            // Blocks of rows on the host, each on the NPU.
            const int f = uni(1, 8);
            Var yo("yo"), yi("yi");
            u.split(y, yo, yi, f).npu(yi);
            sched_ << "f2.update().split(y, Var(\"yo\"), Var(\"yi\"), " << f
                   << ").npu(Var(\"yi\"));\n";
        } else {
            // Chunks of the contraction on the host: the NPU accumulates onto the last chunk's.
            const int f = uni(1, 16);
            RVar ko("ko"), ki("ki");
            u.split(r.x, ko, ki, f).reorder(ki, x, y, ko, r.y).npu(y);
            sched_ << "f2.update().split(rk.x, RVar(\"ko\"), RVar(\"ki\"), " << f
                   << ").reorder(RVar(\"ki\"), x, y, RVar(\"ko\"), rk.y).npu(y);\n";
        }
        // Tile rows that fit the default NPU's INP buffer (2048 rows of 16, for two copies):
        // each row of the tile takes one INP row per block of 16 of the contraction, or per tap
        // when depthwise. (Larger ones are a runtime error that names the largest that fits.)
        const int per_row = depthwise ? k1 * k2 : (k1 * k2 + 15) / 16;
        const int fit = std::max(1, std::min(20, 2048 / (2 * per_row)));
        const int rows = coin(0.5) ? 0 : uni(1, fit), copies = uni(1, 2);
        u.npu_tile(rows).npu_pipeline(copies);
        sched_ << "f2.update().npu_tile(" << rows << ").npu_pipeline(" << copies << ");\n";
        if (requantize && coin(0.7)) {
            c.update(1).npu_gemm();
            sched_ << "f2.update(1).npu_gemm();\n";
        }
        if (epilogue == 3 && coin(0.7)) {
            out.npu_gemm();
            sched_ << "f3.npu_gemm();\n";
        }

        c_.output = out;
        c_.output_size = {n, m};
        c_.funcs = epilogue ? 4 : 3;
        c_.algorithm_code = alg_.str();
        c_.schedule_code = sched_.str();
        c_.target = Target("host-npu");
        return c_;
    }

  private:
    int uni(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
    bool coin(double p) { return std::bernoulli_distribution(p)(rng_); }

    /// `f`(x, y) = an int8 function of `in` around (x, y) (wrapping arithmetic).
    void define_operand(Func &f, Func in, const Var &x, const Var &y, const std::string &in_code) {
        const std::string name = f.name();
        switch (uni(0, 3)) {
            case 0:
                f(x, y) = in(x, y);
                alg_ << "Func " << name << "(\"" << name << "\");\n"
                     << name << "(x, y) = " << in_code << "(x, y);\n";
                break;
            case 1:
                f(x, y) = in(x, y) - in(x + 1, y);
                alg_ << "Func " << name << "(\"" << name << "\");\n"
                     << name << "(x, y) = " << in_code << "(x, y) - " << in_code << "(x + 1, y);\n";
                break;
            case 2:
                f(x, y) = max(in(x, y), cast<int8_t>(-100)) ^ cast<int8_t>(5);
                alg_ << "Func " << name << "(\"" << name << "\");\n"
                     << name << "(x, y) = max(" << in_code
                     << "(x, y), cast<int8_t>(-100)) ^ cast<int8_t>(5);\n";
                break;
            default:
                f(x, y) = cast<int8_t>(x * 7 - y) + in(x, y + 1);
                alg_ << "Func " << name << "(\"" << name << "\");\n"
                     << name << "(x, y) = cast<int8_t>(x * 7 - y) + " << in_code << "(x, y + 1);\n";
                break;
        }
    }

    std::mt19937_64 rng_;
    FuzzCase c_;
    std::ostringstream alg_, sched_;
};

}  // namespace

FuzzCase make_npu_case(uint64_t seed) {
    return NPUCaseBuilder(seed).build();
}

}  // namespace dsl::fuzz
