// Random GPU schedules for the fuzzer's pipelines (make_gpu_case, RandomPipeline.h), legal by
// construction: every Func that is not inlined is computed at root, or (one that has one stage
// and one reader, whose stage runs on the GPU in tiles of two dimensions) per block of its reader's
// kernel, in shared memory, by the block's threads or by its first thread, or per thread. Each
// stage of a Func at root is tiled into blocks and threads over its pure loops in one or two
// dimensions, with random sizes and tails, or left on the host; so is each of its update stages, on
// its own. A stage without RVars sometimes computes a vector of lanes in each thread, and a tile's
// width is sometimes a Param (sizes known at the launch: thread counts, shared memory). They run
// through OpenCL, or the GPU API of the target DSL_FUZZ_GPU_TARGET names.
#include <cctype>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>

#include "RandomPipeline.h"

namespace dsl::fuzz {

namespace {

/// The GPU loops a stage was given: its innermost block loop and its innermost thread loop,
/// and whether it is tiled in two dimensions (a producer computed in its kernel then has a
/// footprint of constant size; with one, the other pure loop runs whole inside each thread).
struct GPUStage {
    std::string block, thread;
    bool two_d = false;
};

class GPUScheduler {
  public:
    explicit GPUScheduler(FuzzCase &c) : c_(c), rng_(c.seed * 0xd6e8feb86659fd93ULL + 3) {}

    void schedule() {
        int n = static_cast<int>(c_.func_specs.size());
        // Consumers first: a producer placed in its reader's kernel needs the reader's loops.
        for (int i = n - 1; i >= 0; i--) {
            FuzzFunc &f = c_.func_specs[static_cast<size_t>(i)];
            if (f.inlined) continue;
            if (i == n - 1 || !place_inside_a_kernel(i)) {
                if (i != n - 1) {
                    f.f.compute_root();
                    code_ << f.name << ".compute_root();\n";
                }
                for (size_t k = 0; k < f.stage_loops.size(); k++)
                    maybe_tile(i, static_cast<int>(k));
            }
        }
        c_.schedule_code += code_.str();
        c_.target = gpu_fuzz_target();
    }

  private:
    int uni(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
    bool coin(double p) { return std::bernoulli_distribution(p)(rng_); }

    Stage stage_of(const FuzzFunc &f, int k) { return Stage(f.f.contents(), k); }
    std::string stage_code(const FuzzFunc &f, int k) {
        return k == 0 ? f.name : f.name + ".update(" + std::to_string(k - 1) + ")";
    }

    /// Tiles stage `k` of Func `i` (at root) over its pure loops, or leaves it on the host.
    void maybe_tile(int i, int k) {
        FuzzFunc &f = c_.func_specs[static_cast<size_t>(i)];
        std::vector<std::string> pure;
        for (const auto &[name, rvar] : f.stage_loops[static_cast<size_t>(k)])
            if (!rvar) pure.push_back(name);
        if (pure.empty() || coin(0.2)) return;  // on the host
        const std::string prefix = f.name + "_s" + std::to_string(k) + "_";
        static const int sizes[] = {1, 2, 3, 4, 8, 16, 32};
        auto size = [&] { return sizes[uni(0, 6)]; };
        TailStrategy tail = coin(0.5) ? TailStrategy::GuardWithIf : TailStrategy::Auto;
        const char *tail_code = tail == TailStrategy::Auto ? "Auto" : "GuardWithIf";
        Stage s = stage_of(f, k);
        const bool two_d = pure.size() >= 2 && coin(0.7);
        const std::string &v =
            two_d ? pure[0] : pure[static_cast<size_t>(uni(0, int(pure.size()) - 1))];
        unroll_inside_rvars(f, k, v, s);
        if (two_d) {
            int sx = size(), sy = size();
            while (sx * sy > 256)
                sy /= 2;
            Var bx(prefix + "bx"), by(prefix + "by"), tx(prefix + "tx"), ty(prefix + "ty");
            // Sometimes the tile's width is a Param: thread counts and the shared memory of
            // producers computed per block are then sized at each launch. Drawn from a stream
            // of its own, so that every seed keeps the rest of the schedule it had.
            Expr width = sx;
            std::string width_code = std::to_string(sx);
            if (std::bernoulli_distribution(0.25)(param_rng_)) {
                Param<int32_t> p(prefix + "width");
                p.set(sx);
                width = p;
                width_code = p.name();
                code_ << "Param<int32_t> " << p.name() << "(\"" << p.name() << "\");\n"
                      << p.name() << ".set(" << sx << ");\n";
                tail = TailStrategy::GuardWithIf;
                tail_code = "GuardWithIf";
            }
            s.gpu_tile(Var(pure[0]), Var(pure[1]), bx, by, tx, ty, width, sy, tail);
            code_ << stage_code(f, k) << ".gpu_tile(Var(\"" << pure[0] << "\"), Var(\"" << pure[1]
                  << "\"), Var(\"" << bx.name() << "\"), Var(\"" << by.name() << "\"), Var(\""
                  << tx.name() << "\"), Var(\"" << ty.name() << "\"), " << width_code << ", " << sy
                  << ", TailStrategy::" << tail_code << ");\n";
            gpu_[{i, k}] = {bx.name(), tx.name(), true};
            maybe_vectorize(f, k, s, tx, sx);
        } else {
            int sv = size();
            Var bx(prefix + "bx"), tx(prefix + "tx");
            s.gpu_tile(Var(v), bx, tx, sv, tail);
            code_ << stage_code(f, k) << ".gpu_tile(Var(\"" << v << "\"), Var(\"" << bx.name()
                  << "\"), Var(\"" << tx.name() << "\"), " << sv << ", TailStrategy::" << tail_code
                  << ");\n";
            gpu_[{i, k}] = {bx.name(), tx.name(), false};
            maybe_vectorize(f, k, s, tx, sv);
        }
    }

    /// Sometimes, for a stage without RVars: each thread computes a vector of 2, 3, 4 or 8
    /// lanes of the tile's loop `tx` (of `size`). Drawn from a stream of its own, so that every
    /// seed keeps the rest of the schedule it had.
    void maybe_vectorize(const FuzzFunc &f, int k, Stage &s, const Var &tx, int size) {
        for (const auto &[name, rvar] : f.stage_loops[static_cast<size_t>(k)])
            if (rvar) return;
        if (!std::bernoulli_distribution(0.3)(vector_rng_)) return;
        static const int lanes[] = {2, 3, 4, 8};
        const int n = lanes[std::uniform_int_distribution<int>(0, 3)(vector_rng_)];
        if (n > size) return;
        const bool guard = std::bernoulli_distribution(0.5)(vector_rng_);
        s.vectorize(tx, n, guard ? TailStrategy::GuardWithIf : TailStrategy::Auto);
        code_ << stage_code(f, k) << ".vectorize(Var(\"" << tx.name() << "\"), " << n
              << ", TailStrategy::" << (guard ? "GuardWithIf" : "Auto") << ");\n";
    }

    /// For an update over RVars, sometimes: a few consecutive points of `v` unrolled inside
    /// the RVar loops, so that each thread updates several fixed points over a serial loop (its
    /// sums kept in registers, lowering/RegisterAccumulators) with a guard at the edge. Drawn
    /// from a stream of its own, so that every seed keeps the rest of the schedule it had.
    void unroll_inside_rvars(const FuzzFunc &f, int k, const std::string &v, Stage &s) {
        std::vector<VarOrRVar> order;
        std::string rvars;
        for (const auto &[name, rvar] : f.stage_loops[static_cast<size_t>(k)]) {
            if (!rvar) continue;
            order.push_back(RVar(name));
            rvars += ", RVar(\"" + name + "\")";
        }
        if (order.empty() || !std::bernoulli_distribution(0.35)(unroll_rng_)) return;
        const int u = std::uniform_int_distribution<int>(2, 4)(unroll_rng_);
        Var vu(f.name + "_s" + std::to_string(k) + "_" + v + "u");
        order.insert(order.begin(), vu);
        s.split(Var(v), Var(v), vu, u, TailStrategy::GuardWithIf).reorder(order).unroll(vu);
        code_ << stage_code(f, k) << ".split(Var(\"" << v << "\"), Var(\"" << v << "\"), Var(\""
              << vu.name() << "\"), " << u << ", TailStrategy::GuardWithIf).reorder({Var(\""
              << vu.name() << "\")" << rvars << "}).unroll(Var(\"" << vu.name() << "\"));\n";
    }

    /// Computes Func `i` per block or per thread of its only reader's kernel; false when it
    /// cannot be (more than one stage or reader, a reader on the host).
    bool place_inside_a_kernel(int i) {
        FuzzFunc &f = c_.func_specs[static_cast<size_t>(i)];
        if (f.stage_loops.size() != 1 || f.users.size() != 1 || scaled_reads(f.name) || coin(0.4))
            return false;
        auto it = gpu_.find(f.users[0]);
        if (it == gpu_.end() || !it->second.two_d) return false;
        const FuzzFunc &reader = c_.func_specs[static_cast<size_t>(f.users[0].first)];
        if (coin(0.3)) {
            f.f.compute_at(reader.f, Var(it->second.thread));
            code_ << f.name << ".compute_at(" << reader.name << ", Var(\"" << it->second.thread
                  << "\"));\n";
            return true;
        }
        f.f.compute_at(reader.f, Var(it->second.block));
        code_ << f.name << ".compute_at(" << reader.name << ", Var(\"" << it->second.block
              << "\"));\n";
        if (coin(0.7)) {
            // The block's threads compute it together; otherwise its first thread does.
            std::vector<VarOrRVar> loops;
            std::string names;
            for (const auto &[name, rvar] : f.stage_loops[0]) {
                loops.push_back(Var(name));
                names += std::string(names.empty() ? "" : ", ") + "Var(\"" + name + "\")";
            }
            if (loops.size() == 2) {
                f.f.gpu_threads(loops[0], loops[1]);
            } else {
                f.f.gpu_threads(loops[0]);
            }
            code_ << f.name << ".gpu_threads(" << names << ");\n";
        }
        return true;
    }

    /// Whether some Func reads `name` at a coordinate divided by something, f((x) / 3 + ...):
    /// together with reads at x, its footprint over a tile grows with x, so it has no
    /// constant size inside a kernel.
    bool scaled_reads(const std::string &name) const {
        // Through the inlined Funcs that read it, too.
        for (const FuzzFunc &g : c_.func_specs) {
            if (!g.inlined || g.name == name) continue;
            std::string head = g.name + "(x, y) = ";
            size_t def = c_.algorithm_code.find(head);
            if (def == std::string::npos) continue;
            size_t line_end = c_.algorithm_code.find('\n', def);
            std::string body =
                c_.algorithm_code.substr(def + head.size(), line_end - def - head.size());
            if (calls_of(body, name).size() > 0 && scaled_reads(g.name)) return true;
        }
        for (const std::string &arguments : calls_of(c_.algorithm_code, name))
            if (arguments.find(" / ") != std::string::npos) return true;
        return false;
    }

    /// The arguments of each call of `name` in `code`.
    static std::vector<std::string> calls_of(const std::string &code, const std::string &name) {
        std::vector<std::string> calls;
        for (size_t at = code.find(name + "("); at != std::string::npos;
             at = code.find(name + "(", at + 1)) {
            if (at > 0 &&
                (std::isalnum(static_cast<unsigned char>(code[at - 1])) || code[at - 1] == '_'))
                continue;  // another name that ends with this one
            // The call's arguments, to its closing parenthesis.
            size_t end = at + name.size();
            for (int depth = 0; end < code.size(); end++) {
                depth += code[end] == '(' ? 1 : code[end] == ')' ? -1 : 0;
                if (depth == 0) break;
            }
            calls.push_back(code.substr(at + name.size(), end - at - name.size()));
        }
        return calls;
    }

    FuzzCase &c_;
    std::mt19937_64 rng_;
    std::mt19937_64 unroll_rng_{c_.seed * 0xbf58476d1ce4e5b9ULL + 11};
    std::mt19937_64 vector_rng_{c_.seed * 0x94d049bb133111ebULL + 17};
    std::mt19937_64 param_rng_{c_.seed * 0x2545f4914f6cdd1dULL + 23};
    std::ostringstream code_;
    std::map<std::pair<int, int>, GPUStage> gpu_;
};

}  // namespace

Target gpu_fuzz_target() {
    // DSL_FUZZ_GPU_TARGET (e.g. host-cuda on a machine with an NVIDIA GPU) overrides OpenCL,
    // which runs everywhere through PoCL.
    const char *target = std::getenv("DSL_FUZZ_GPU_TARGET");
    return Target(target && *target ? target : "host-opencl");
}

std::string gpu_fuzz_unavailable() {
    Var x("x"), bx("bx"), tx("tx");
    Func probe("gpu_probe");
    probe(x) = x;
    probe.gpu_tile(x, bx, tx, 4);
    try {
        probe.realize({4}, gpu_fuzz_target());
    } catch (const RuntimeError &e) {
        return e.what();
    }
    return "";
}

FuzzCase make_gpu_case(uint64_t seed) {
    FuzzCase c = make_unscheduled_case(seed);
    GPUScheduler(c).schedule();
    return c;
}

}  // namespace dsl::fuzz
