#include "RandomPipeline.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "common/PipelineCheck.h"

namespace dsl::fuzz {

namespace {
std::atomic<bool> draw_half_floats{false};
}  // namespace

void set_half_floats(bool on) {
    draw_half_floats = on;
}

bool half_floats() {
    return draw_half_floats;
}

namespace {

std::string type_code(Type t) {
    std::string bits = std::to_string(t.bits());
    if (t.is_float()) return "Float(" + bits + ")";
    if (t.is_uint()) return "UInt(" + bits + ")";
    return "Int(" + bits + ")";
}

const char *tail_code(TailStrategy t) {
    return tail_strategy_code(t);
}

/// An expression and the C++ that builds it.
struct E {
    Expr e;
    std::string s;
};

/// A loop of a stage, as the generator tracks it to choose legal directives.
struct Loop {
    std::string name;
    bool rvar = false;
    bool vectorized = false;
    bool parallel = false;
    int64_t extent = -1;      // when known (the inner loop of a split, or from the output's size)
    bool constant = false;    // whether the extent is a constant when compiled
    bool from_inner = false;  // the inner loop of a split, or made from one
};

struct StageSpec {
    std::vector<Loop> dims;  // innermost first
    bool vectorized = false;
    int parallel_loops = 0;
    std::set<int> calls;   // the Funcs of the pipeline the stage reads
    std::set<int> inputs;  // the inputs it reads itself (not through the Funcs it calls)
    // The names unroll(x, factor) gave its inner loops: the library never names a loop as one
    // the stage had (fused away since), so these stay taken.
    std::set<std::string> unrolled;
};

struct FuncSpec {
    Func f;
    std::string name;
    std::vector<Type> types;
    std::vector<StageSpec> stages;
    bool inlined = false;
    // Whether its update folds terms into the point with an associative operator (a window's
    // sum, min or max; a histogram's count), so that it may be scheduled atomic().
    bool associative = false;
    bool scatters = false;  // the histogram: its written point depends on the RVars
    // A scan of one iteration: its one iteration reads a point it does not write (no race).
    bool race_free_scan = false;
    int cost = 1;  // producer reads after inlining
    std::set<int> inputs_read;
    bool param_read = false;
    // Where it is computed: -1 for root, else the consumer, its stage and loop.
    int at_func = -1;
    int at_stage = 0;
    std::string at_loop;
    // Whether a split of one of its stages may round up or shift inwards (any tail but
    // GuardWithIf): a producer computed outside its loops is then refused (it would read past the
    // producer's region).
    bool may_round = false;
};

struct InputSpec {
    ImageParam param;
    Func bounded;
    std::string name;
    Type type;
};

VarOrRVar handle(const Loop &l) {
    if (l.rvar) return VarOrRVar(RVar(l.name));
    return VarOrRVar(Var(l.name));
}

std::string code(const Loop &l) {
    return std::string(l.rvar ? "RVar(\"" : "Var(\"") + l.name + "\")";
}

class Generator {
  public:
    // The bound_extent choices draw from a stream of their own, so that every seed still makes
    // the pipeline and schedule it made before they were added (CTest's seeds included).
    explicit Generator(uint64_t seed)
        : rng_(seed),
          bound_rng_(seed * 0x9e3779b97f4a7c15ULL + 1),
          constraint_rng_(seed * 0xbf58476d1ce4e5b9ULL + 7),
          prefetch_rng_(seed * 0x94d049bb133111ebULL + 11),
          atomic_rng_(seed * 0xd6e8feb86659fd93ULL + 13) {
        c_.seed = seed;
    }
    /// Schedules associative updates atomic() with a loop over their RVars vectorized or
    /// parallel (make_atomic_case); the choices draw from a stream of their own.
    void set_atomic() { atomic_ = true; }

    FuzzCase build(bool illegal, bool scheduled = true) {
        make_inputs();
        int n = uni(1, 8);
        for (int i = 0; i < n; i++)
            define(i, i == n - 1);
        c_.output = funcs_.back().f;
        c_.funcs = n;
        // An update writes where its arguments say: the output must hold that.
        int w = std::max(min_width_, coin(0.15) ? uni(40, 100) : uni(1, 40));
        int h = std::max(min_height_, coin(0.15) ? uni(20, 50) : uni(1, 24));
        c_.output_size = {w, h};
        int32_t p = uni(-4, 4);
        c_.param.set(p);
        sched_ << "p0.set(" << p << ");\n";
        if (!scheduled) {
            choose_inlining();
            constrain(w, h);
            find_arguments();
            describe_funcs();
            c_.algorithm_code = alg_.str();
            c_.schedule_code = sched_.str();
            return std::move(c_);
        }
        schedule();
        add_prefetches();
        constrain(w, h);
        find_arguments();
        if (illegal) add_illegal_directive();
        c_.algorithm_code = alg_.str();
        c_.schedule_code = sched_.str();
        return std::move(c_);
    }

  private:
    int uni(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
    bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng_); }
    template <typename T>
    const T &pick(const std::vector<T> &v) {
        return v[static_cast<size_t>(uni(0, static_cast<int>(v.size()) - 1))];
    }

    Type random_type() {
        static const std::vector<Type> types = {UInt(8),   UInt(16),  Int(16),   Int(32),
                                                Float(32), Float(16), BFloat(16)};
        // The last two (float16, bfloat16) only with --half-floats.
        if (half_floats()) return pick(types);
        return types[static_cast<size_t>(uni(0, static_cast<int>(types.size()) - 3))];
    }

    std::string fresh(const std::string &base) { return base + "_" + std::to_string(fresh_++); }

    // ---- buffer constraints ----

    /// Sometimes constrains the buffers to what they will be (the inputs' bounds and dense
    /// rows, the outputs' bounds: every realization of a case starts them at 0, strided or
    /// not), so that lowering assumes those values everywhere. From a stream of its own, like
    /// bound_extent's.
    void constrain(int w, int h) {
        auto chance = [&](double p) { return std::bernoulli_distribution(p)(constraint_rng_); };
        if (!chance(0.25)) return;
        c_.constrained = true;
        for (size_t i = 0; i < inputs_.size(); i++) {
            const InputSpec &in = inputs_[i];
            const Buffer<> &b = c_.input_buffers[i];
            if (chance(0.5)) {
                in.param.dim(0).set_stride(1);
                sched_ << in.name << ".dim(0).set_stride(1);\n";
            }
            for (int d = 0; d < 2; d++) {
                if (!chance(0.5)) continue;
                in.param.dim(d).set_bounds(b.dim(d).min(), b.dim(d).extent());
                sched_ << in.name << ".dim(" << d << ").set_bounds(" << b.dim(d).min() << ", "
                       << b.dim(d).extent() << ");\n";
            }
        }
        std::vector<OutputBuffer> outputs = c_.output.output_buffers();
        for (size_t i = 0; i < outputs.size(); i++) {
            for (int d = 0; d < 2; d++) {
                if (!chance(0.6)) continue;
                const bool extent = chance(0.5);
                outputs[i].dim(d).set_min(0);
                if (extent) outputs[i].dim(d).set_extent(d == 0 ? w : h);
                sched_ << c_.output.name() << ".output_buffers()[" << i << "].dim(" << d
                       << ").set_min(0)";
                if (extent) sched_ << ".set_extent(" << (d == 0 ? w : h) << ")";
                sched_ << ";\n";
            }
        }
    }

    // ---- inputs ----

    void make_inputs() {
        int n = uni(1, 2);
        static const char *conditions[] = {"repeat_edge", "mirror_interior", "mirror_image",
                                           "repeat_image", "constant_exterior"};
        for (int i = 0; i < n; i++) {
            Type type = random_type();
            std::string name = "in" + std::to_string(i);
            InputSpec in{ImageParam(type, 2, name), Func(), name, type};
            int w = uni(3, 40), h = uni(3, 30);
            uint64_t buffer_seed = rng_();
            Buffer<> b = test::random_buffer(in.type, {w, h}, buffer_seed);
            in.param.set(b);
            int which = uni(0, 4);
            std::string bc = conditions[which];
            switch (which) {
                case 0:
                    in.bounded = BoundaryConditions::repeat_edge(in.param);
                    break;
                case 1:
                    in.bounded = BoundaryConditions::mirror_interior(in.param);
                    break;
                case 2:
                    in.bounded = BoundaryConditions::mirror_image(in.param);
                    break;
                case 3:
                    in.bounded = BoundaryConditions::repeat_image(in.param);
                    break;
                default:
                    in.bounded = BoundaryConditions::constant_exterior(
                        in.param, make_const(in.type, int64_t{3}));
                    bc += ", make_const(" + type_code(in.type) + ", 3)";
                    break;
            }
            alg_ << "ImageParam " << in.name << "(" << type_code(in.type) << ", 2, \"" << in.name
                 << "\");\n"
                 << in.name << ".set(test::random_buffer(" << type_code(in.type) << ", {" << w
                 << ", " << h << "}, " << buffer_seed << "u));\n"
                 << "Func " << in.name << "_b = BoundaryConditions::" << bc.substr(0, bc.find(','))
                 << "(" << in.name << (which == 4 ? bc.substr(bc.find(',')) : "") << ");\n";
            c_.inputs.push_back(in.param);
            c_.input_buffers.push_back(b);
            inputs_.push_back(in);
        }
    }

    // ---- expressions ----

    E num(Type t, int64_t v) {
        if (t.is_float()) {
            double d = static_cast<double>(v) / 2;
            std::ostringstream s;
            s << "make_const(" << type_code(t) << ", " << d
              << (d == static_cast<int64_t>(d) ? ".0" : "") << ")";
            return {make_const(t, d), s.str()};
        }
        return {make_const(t, v), "make_const(" + type_code(t) + ", " + std::to_string(v) + ")"};
    }
    E constant(Type t) {
        if (t.is_uint()) return num(t, uni(0, 20));
        return num(t, uni(-20, 20));
    }
    E cast_to(Type t, const E &a) {
        if (a.e.type() == t) return a;
        return {cast(t, a.e), "cast(" + type_code(t) + ", " + a.s + ")"};
    }
    static E bin(const std::function<Expr(Expr, Expr)> &op, const std::string &infix, const E &a,
                 const E &b) {
        return {op(a.e, b.e), "(" + a.s + " " + infix + " " + b.s + ")"};
    }
    static E call2(const std::function<Expr(Expr, Expr)> &op, const std::string &name, const E &a,
                   const E &b) {
        return {op(a.e, b.e), name + "(" + a.s + ", " + b.s + ")"};
    }

    /// A coordinate: the base (x, or x + r.x in a reduction) plus an offset.
    E coordinate(const E &base, int offset) {
        if (offset == 0) return base;
        std::string s = base.s + (offset > 0 ? " + " : " - ") + std::to_string(std::abs(offset));
        return {base.e + offset, s};
    }
    int offset() { return coin(0.5) ? 0 : uni(-2, 2); }

    /// An earlier Func (below current_) or an input (from current_ on) to read.
    int pick_source() {
        int producers = current_;
        int choices = producers + static_cast<int>(inputs_.size());
        int k = uni(0, choices - 1);
        // Prefer a Func nobody reads yet, so that the pipeline is a connected DAG.
        for (int i = 0; i < producers; i++) {
            if (!used_.count(i) && coin(0.7)) {
                k = i;
                break;
            }
        }
        return k;
    }

    /// Source `k` (pick_source) read at (cx, cy): an input perhaps at a gathered column, or an
    /// earlier Func's element `element` (-1: any) of its tuple.
    E read_source(int k, E cx, const E &cy, int element = -1) {
        int producers = current_;
        if (k >= producers) {
            const InputSpec &in = inputs_[static_cast<size_t>(k - producers)];
            funcs_[static_cast<size_t>(current_)].inputs_read.insert(k - producers);
            stage_inputs_.insert(k - producers);
            if (!no_gather_ && coin(0.1) && !in.type.is_float()) {
                // A gather: the column comes from the data.
                E v = {in.bounded(base_x_.e, base_y_.e),
                       in.name + "_b(" + base_x_.s + ", " + base_y_.s + ")"};
                E idx = cast_to(Int(32), v);
                cx = {clamp(idx.e, -3, 30), "clamp(" + idx.s + ", -3, 30)"};
            }
            return {in.bounded(cx.e, cy.e), in.name + "_b(" + cx.s + ", " + cy.s + ")"};
        }
        used_.insert(k);
        calls_.insert(k);
        const FuncSpec &p = funcs_[static_cast<size_t>(k)];
        FuncRef ref = p.f(cx.e, cy.e);
        std::string s = p.name + "(" + cx.s + ", " + cy.s + ")";
        if (p.types.size() > 1) {
            int i = element >= 0 ? element : uni(0, static_cast<int>(p.types.size()) - 1);
            return {ref[i], s + "[" + std::to_string(i) + "]"};
        }
        return {Expr(ref), s};
    }

    /// A read of an earlier Func or an input, near the current point.
    E read() {
        int k = pick_source();
        E cx = coordinate(base_x_, offset()), cy = coordinate(base_y_, offset());
        if (coin(0.1)) {
            // An upsampling's column: x / q + c * (x % q) + d (f(x / 2) and f(x / 2 - 1 +
            // 2 * (x % 2)) are two such).
            const int q = uni(2, 4), c = uni(-1, 2), d = uni(-2, 2);
            cx = {base_x_.e / q + c * (base_x_.e % q) + d,
                  "(" + base_x_.s + ") / " + std::to_string(q) + " + " + std::to_string(c) +
                      " * ((" + base_x_.s + ") % " + std::to_string(q) + ") + " +
                      std::to_string(d)};
        }
        return read_source(k, cx, cy);
    }

    /// A stencil along x: three to five reads of one source in one row, at distinct columns
    /// x - 3 .. x + 4, weighted and summed (vectorized over x, with lanes of 32 bits or more,
    /// their loads share two loads and shuffles on AVX-512).
    E stencil(Type t) {
        const int k = pick_source();
        int element = -1;
        if (k < current_) {
            const FuncSpec &p = funcs_[static_cast<size_t>(k)];
            if (p.types.size() > 1) element = uni(0, static_cast<int>(p.types.size()) - 1);
        }
        const E cy = coordinate(base_y_, offset());
        std::set<int> shifts;
        const size_t taps = static_cast<size_t>(uni(3, 5));
        while (shifts.size() < taps)
            shifts.insert(uni(-3, 4));
        bool saved = no_gather_;
        no_gather_ = true;
        E sum;
        for (int shift : shifts) {
            E tap = cast_to(t, read_source(k, coordinate(base_x_, shift), cy, element));
            E weight = num(t, uni(1, 3));
            E term = bin([](Expr a, Expr b) { return a * b; }, "*", tap, weight);
            sum = sum.s.empty() ? term : bin([](Expr a, Expr b) { return a + b; }, "+", sum, term);
        }
        no_gather_ = saved;
        return sum;
    }

    /// A read of an earlier Func or an input at the current point (no gather).
    E read_near() {
        bool saved = no_gather_;
        no_gather_ = true;
        E r = read();
        no_gather_ = saved;
        return r;
    }

    E leaf(Type t) {
        if (coin(0.1)) return stencil(t);
        int k = uni(0, 11);
        if (k < 6) return cast_to(t, read());
        if (k < 8) {
            E c = coin() ? base_x_ : base_y_;
            if (coin(0.3)) c = bin([](Expr a, Expr b) { return a + b; }, "+", base_x_, base_y_);
            return cast_to(t, c);
        }
        if (k < 9) {
            funcs_[static_cast<size_t>(current_)].param_read = true;
            return cast_to(t, E{c_.param, "p0"});
        }
        return constant(t);
    }

    E condition(int depth) {
        Type t = random_type();
        E a = expr(t, depth), b = coin(0.5) ? expr(t, depth) : constant(t);
        switch (uni(0, 5)) {
            case 0:
                return bin([](Expr p, Expr q) { return p < q; }, "<", a, b);
            case 1:
                return bin([](Expr p, Expr q) { return p <= q; }, "<=", a, b);
            case 2:
                return bin([](Expr p, Expr q) { return p == q; }, "==", a, b);
            case 3:
                return bin([](Expr p, Expr q) { return p != q; }, "!=", a, b);
            case 4: {
                E c = condition(0);
                return bin([](Expr p, Expr q) { return p && q; }, "&&",
                           bin([](Expr p, Expr q) { return p > q; }, ">", a, b), c);
            }
            default: {
                E c = condition(0);
                return bin([](Expr p, Expr q) { return p || q; }, "||",
                           bin([](Expr p, Expr q) { return p >= q; }, ">=", a, b), c);
            }
        }
    }

    E expr(Type t, int depth) {
        if (depth <= 0 || coin(0.2)) return leaf(t);
        E a = expr(t, depth - 1);
        auto other = [&] { return expr(t, depth - 1); };
        const int choice = uni(0, 13);
        switch (choice) {
            case 0:
            case 1:
                return bin([](Expr p, Expr q) { return p + q; }, "+", a, other());
            case 2:
                return bin([](Expr p, Expr q) { return p - q; }, "-", a, other());
            case 3:
                return bin([](Expr p, Expr q) { return p * q; }, "*", a, other());
            case 4:
                return call2([](Expr p, Expr q) { return min(p, q); }, "min", a, other());
            case 5:
                return call2([](Expr p, Expr q) { return max(p, q); }, "max", a, other());
            case 6: {
                E b = coin() ? other() : constant(t);
                return bin([](Expr p, Expr q) { return p / q; }, "/", a, b);
            }
            case 7: {
                E b = coin() ? other() : constant(t);
                if (t.is_float()) return bin([](Expr p, Expr q) { return p + q; }, "+", a, b);
                return bin([](Expr p, Expr q) { return p % q; }, "%", a, b);
            }
            case 8:
            case 9: {
                E c = condition(depth - 1);
                E b = other();
                // One select in two marks its condition likely (without a draw, so that a seed
                // still makes the same pipelines): loops are then partitioned where it holds.
                if (choice == 8) c = {likely(c.e), "likely(" + c.s + ")"};
                return {select(c.e, a.e, b.e), "select(" + c.s + ", " + a.s + ", " + b.s + ")"};
            }
            case 10:
                return cast_to(t, cast_to(random_type(), a));  // through another type
            case 11: {
                if (t.is_float() && coin()) {
                    E b = other(), c = other();
                    return {fma(a.e, b.e, c.e), "fma(" + a.s + ", " + b.s + ", " + c.s + ")"};
                }
                if (t.is_float())
                    return call2([](Expr p, Expr q) { return min(p, q); }, "min", a, other());
                switch (uni(0, 2)) {
                    case 0:
                        return bin([](Expr p, Expr q) { return p & q; }, "&", a, other());
                    case 1:
                        return bin([](Expr p, Expr q) { return p | q; }, "|", a, other());
                    default:
                        return bin([](Expr p, Expr q) { return p ^ q; }, "^", a, other());
                }
            }
            case 12:
                return cast_to(t, E{abs(a.e), "abs(" + a.s + ")"});
            default: {
                E lo = constant(t), hi = constant(t);
                return {clamp(a.e, min(lo.e, hi.e), max(lo.e, hi.e)),
                        "clamp(" + a.s + ", min(" + lo.s + ", " + hi.s + "), max(" + lo.s + ", " +
                            hi.s + "))"};
            }
        }
    }

    // ---- definitions ----

    void begin_stage() {
        calls_.clear();
        stage_inputs_.clear();
        base_x_ = {x_, "x"};
        base_y_ = {y_, "y"};
    }
    void end_stage(FuncSpec &fs, std::vector<Loop> dims) {
        StageSpec s;
        s.dims = std::move(dims);
        s.calls = calls_;
        s.inputs = stage_inputs_;
        fs.stages.push_back(s);
    }
    std::vector<Loop> pure_loops() { return {Loop{"x"}, Loop{"y"}}; }

    void define(int i, bool is_output) {
        current_ = i;
        funcs_.emplace_back();
        FuncSpec &fs = funcs_.back();
        fs.name = "f" + std::to_string(i);
        fs.f = Func(fs.name);
        alg_ << "Func " << fs.name << "(\"" << fs.name << "\");\n";
        int kind = uni(0, 9);
        bool have_int_input = false;
        for (const InputSpec &in : inputs_)
            have_int_input |= !in.type.is_float();
        if (kind == 9 && !have_int_input) kind = 0;
        std::string f = fs.name;
        if (kind == 7 || kind == 8) {
            // A Tuple; with kind 8 an argmax over a small window.
            fs.types = {random_type(), Int(32)};
            begin_stage();
            E a = expr(fs.types[0], 2), b = expr(Int(32), 1);
            fs.f(x_, y_) = Tuple({a.e, b.e});
            alg_ << f << "(x, y) = Tuple(" << a.s << ", " << b.s << ");\n";
            end_stage(fs, pure_loops());
            if (kind == 8) {
                RDom r(-1, 3, "r" + std::to_string(i));
                std::string rn = "r" + std::to_string(i);
                alg_ << "RDom " << rn << "(-1, 3, \"" << rn << "\");\n";
                begin_stage();
                base_x_ = {x_ + r, "x + " + rn};
                E v = cast_to(fs.types[0], read());
                Expr better = v.e > fs.f(x_, y_)[0];
                fs.f(x_, y_) = Tuple({select(better, v.e, fs.f(x_, y_)[0]),
                                      select(better, Expr(r), fs.f(x_, y_)[1])});
                alg_ << "{ Expr v = " << v.s << ", better = v > " << f << "(x, y)[0];\n  " << f
                     << "(x, y) = Tuple(select(better, v, " << f << "(x, y)[0]), select(better, "
                     << rn << ", " << f << "(x, y)[1])); }\n";
                end_stage(fs, {Loop{rn + ".x", true}, Loop{"x"}, Loop{"y"}});
            }
        } else {
            Type t = random_type();
            fs.types = {t};
            begin_stage();
            if (kind == 9) {
                // A histogram of an integer input: a scatter into a 4x2 corner.
                fs.types = {Int(32)};
                fs.f(x_, y_) = 0;
                alg_ << f << "(x, y) = 0;\n";
                end_stage(fs, pure_loops());
                std::string rn = "r" + std::to_string(i);
                int ex = uni(1, 9), ey = uni(1, 6);
                RDom r(0, ex, 0, ey, rn);
                alg_ << "RDom " << rn << "(0, " << ex << ", 0, " << ey << ", \"" << rn << "\");\n";
                const InputSpec *in = nullptr;
                for (size_t j = 0; j < inputs_.size(); j++) {
                    if (inputs_[j].type.is_float()) continue;
                    in = &inputs_[j];
                    fs.inputs_read.insert(static_cast<int>(j));
                }
                begin_stage();
                stage_inputs_.insert(static_cast<int>(in - inputs_.data()));
                Expr v = cast(Int(32), in->bounded(r.x, r.y));
                std::string vs = "cast(Int(32), " + in->name + "_b(" + rn + ".x, " + rn + ".y))";
                Expr ix = v & 3, iy = (v / 4) & 1;
                fs.f(ix, iy) = fs.f(ix, iy) + 1;
                fs.associative = fs.scatters = true;
                if (is_output) min_width_ = 4, min_height_ = 2;
                alg_ << "{ Expr v = " << vs << ", ix = v & 3, iy = (v / 4) & 1;\n  " << f
                     << "(ix, iy) = " << f << "(ix, iy) + 1; }\n";
                end_stage(fs, {Loop{rn + ".x", true}, Loop{rn + ".y", true}});
            } else {
                E init = expr(t, kind < 4 ? 3 : 1);
                fs.f(x_, y_) = init.e;
                alg_ << f << "(x, y) = " << init.s << ";\n";
                end_stage(fs, pure_loops());
                if (kind == 4) {
                    // A reduction over a small window, maybe restricted by a condition.
                    std::string rn = "r" + std::to_string(i);
                    int mx = uni(-2, 0), ex = uni(1, 3), my = uni(-2, 0), ey = uni(1, 3);
                    RDom r(mx, ex, my, ey, rn);
                    alg_ << "RDom " << rn << "(" << mx << ", " << ex << ", " << my << ", " << ey
                         << ", \"" << rn << "\");\n";
                    if (coin(0.3)) {
                        switch (uni(0, 2)) {
                            case 0:
                                r.where(r.x != r.y);
                                alg_ << rn << ".where(" << rn << ".x != " << rn << ".y);\n";
                                break;
                            case 1:
                                r.where(r.x + r.y < 1);
                                alg_ << rn << ".where(" << rn << ".x + " << rn << ".y < 1);\n";
                                break;
                            default:
                                r.where(r.x <= x_ % 3 - 1);
                                alg_ << rn << ".where(" << rn << ".x <= x % 3 - 1);\n";
                                break;
                        }
                    }
                    begin_stage();
                    base_x_ = {x_ + r.x, "x + " + rn + ".x"};
                    base_y_ = {y_ + r.y, "y + " + rn + ".y"};
                    // The value reads through the window, so that the update has its RVars.
                    E v = bin([](Expr p, Expr q) { return p + q; }, "+", cast_to(t, read_near()),
                              expr(t, 1));
                    E self{fs.f(x_, y_), f + "(x, y)"};
                    E value;
                    const int op = uni(0, 2);
                    switch (op) {
                        case 0:
                            value = bin([](Expr p, Expr q) { return p + q; }, "+", self, v);
                            break;
                        case 1:
                            value = call2([](Expr p, Expr q) { return max(p, q); }, "max", self, v);
                            break;
                        default:
                            value = call2([](Expr p, Expr q) { return min(p, q); }, "min", self, v);
                            break;
                    }
                    fs.f(x_, y_) = value.e;
                    // Float sums folded in another order round differently, which a cast
                    // further on can turn into any difference: not drawn atomic().
                    fs.associative = !(t.is_float() && op == 0);
                    alg_ << f << "(x, y) = " << value.s << ";\n";
                    end_stage(fs,
                              {Loop{rn + ".x", true}, Loop{rn + ".y", true}, Loop{"x"}, Loop{"y"}});
                } else if (kind == 5) {
                    // An update at every point that reads the current value.
                    begin_stage();
                    E v = expr(t, 1);
                    E self{fs.f(x_, y_), f + "(x, y)"};
                    E two = num(t, 2);
                    E value = {select(x_ % 2 == 0, self.e * two.e, self.e + v.e),
                               "select(x % 2 == 0, " + self.s + " * " + two.s + ", " + self.s +
                                   " + " + v.s + ")"};
                    fs.f(x_, y_) = value.e;
                    alg_ << f << "(x, y) = " << value.s << ";\n";
                    end_stage(fs, pure_loops());
                } else if (kind == 6) {
                    // A scan along x over [1, k]: each point adds its left neighbour.
                    std::string rn = "r" + std::to_string(i);
                    int k = uni(1, 6);
                    RDom r(1, k, rn);
                    alg_ << "RDom " << rn << "(1, " << k << ", \"" << rn << "\");\n";
                    // One scan in three is shifted right by one on odd rows: its written x
                    // is computed from the pure Var y, which also stands at its own position.
                    // (Chosen without a draw, so that older seeds keep their pipelines.)
                    const bool shifted = (k + i) % 3 == 0;
                    Expr shift = shifted ? (y_ & 1) : Expr(0);
                    std::string sx = rn + (shifted ? " + (y & 1)" : "");
                    begin_stage();
                    base_x_ = {Expr(r) + shift, sx};
                    E v = expr(t, 1);
                    fs.f(r + shift, y_) = fs.f(r + shift - 1, y_) + v.e;
                    fs.race_free_scan = k == 1;
                    if (is_output) min_width_ = k + (shifted ? 2 : 1);
                    alg_ << f << "(" << sx << ", y) = " << f << "(" << sx << " - 1, y) + " << v.s
                         << ";\n";
                    end_stage(fs, {Loop{rn + ".x", true}, Loop{"y"}});
                }
            }
        }
    }

    // ---- schedule ----

    std::string stage_code(int f, int stage) const {
        const FuncSpec &fs = funcs_[static_cast<size_t>(f)];
        if (stage == 0) return fs.name;
        return fs.name + ".update(" + std::to_string(stage - 1) + ")";
    }
    Stage stage_of(int f, int stage) const {
        return Stage(funcs_[static_cast<size_t>(f)].f.contents(), stage);
    }

    TailStrategy tail_for(int f, int stage, const Loop &l, int factor) {
        bool output = f == static_cast<int>(funcs_.size()) - 1;
        std::vector<TailStrategy> ok = {TailStrategy::Auto, TailStrategy::GuardWithIf,
                                        TailStrategy::PartialTile};
        if (!l.rvar && !output && !(stage > 0 && l.from_inner)) ok.push_back(TailStrategy::RoundUp);
        if (stage == 0 && (!output || (l.extent >= factor)))
            ok.push_back(TailStrategy::ShiftInwards);
        TailStrategy chosen = pick(ok);
        if (chosen != TailStrategy::GuardWithIf && chosen != TailStrategy::PartialTile)
            funcs_[static_cast<size_t>(f)].may_round = true;
        return chosen;
    }

    static bool has_loop(const std::vector<Loop> &d, const std::string &name) {
        for (const Loop &l : d)
            if (l.name == name) return true;
        return false;
    }
    static bool has_parallel_inside(const std::vector<Loop> &d, int i) {
        for (int j = 0; j < i; j++)
            if (d[static_cast<size_t>(j)].parallel) return true;
        return false;
    }
    static bool has_vector_outside(const std::vector<Loop> &d, int i) {
        for (size_t j = static_cast<size_t>(i) + 1; j < d.size(); j++)
            if (d[j].vectorized) return true;
        return false;
    }
    /// Loop `i` keeps its name as the outer loop of a split whose inner loop is `inner`;
    /// returns the inner loop.
    static Loop &split_in_place(std::vector<Loop> &d, int i, const std::string &inner, int factor) {
        Loop &l = d[static_cast<size_t>(i)];
        Loop in = l;
        in.name = inner;
        in.extent = factor;
        in.constant = true;
        in.from_inner = true;
        in.parallel = false;
        if (l.extent > 0) l.extent = (l.extent + factor - 1) / factor;
        d.insert(d.begin() + i, in);
        return d[static_cast<size_t>(i)];
    }

    /// atomic() on Func `f`'s update, and a loop over its RVars vectorized (by a width, or
    /// whole when short: the lanes are folded in registers, inside or outside a vectorized pure
    /// loop) or parallel (atomic read-modify-writes). A histogram's loops scatter: they stay
    /// parallel only.
    void atomic_directive(int f) {
        FuncSpec &fs = funcs_[static_cast<size_t>(f)];
        StageSpec &u = fs.stages[1];
        std::vector<Loop> &d = u.dims;
        std::vector<int> candidates;
        for (int i = 0; i < static_cast<int>(d.size()); i++) {
            const Loop &l = d[static_cast<size_t>(i)];
            if (l.rvar && !l.vectorized && !l.parallel) candidates.push_back(i);
        }
        if (candidates.empty()) return;
        Stage st = stage_of(f, 1);
        const std::string sc = stage_code(f, 1);
        st.atomic();
        sched_ << sc << ".atomic();\n";
        int i = candidates[atomic_rng_() % candidates.size()];
        Loop &l = d[static_cast<size_t>(i)];
        bool vectorize = !fs.scatters && atomic_rng_() % 2 == 0 && !has_parallel_inside(d, i);
        if (vectorize) {
            if (l.constant && l.extent > 0 && l.extent <= 16 && atomic_rng_() % 2 == 0) {
                st.vectorize(handle(l));
                sched_ << sc << ".vectorize(" << code(l) << ");\n";
                l.vectorized = true;
            } else {
                if (has_loop(d, l.name + "_vectorized")) return;
                const int width = 2 << (atomic_rng_() % 3);
                st.vectorize(handle(l), width);
                sched_ << sc << ".vectorize(" << code(l) << ", " << width << ");\n";
                split_in_place(d, i, l.name + "_vectorized", width).vectorized = true;
            }
            u.vectorized = true;
            return;
        }
        if (has_vector_outside(d, i) || u.parallel_loops >= 2) return;
        st.parallel(handle(l));
        sched_ << sc << ".parallel(" << code(l) << ");\n";
        l.parallel = true;
        u.parallel_loops++;
    }

    /// One random loop directive on stage `k` of Func `f`.
    void loop_directive(int f, int k, StageSpec &s, Stage st, const std::string &sc,
                        bool keep_names) {
        std::vector<Loop> &d = s.dims;
        int i = uni(0, static_cast<int>(d.size()) - 1);
        Loop &l = d[static_cast<size_t>(i)];
        bool pure = !l.rvar;
        int what = uni(0, 9);
        if (keep_names && (what <= 2 || what == 8)) what = 5;
        // A specialization must keep the storage of producers stored outside their compute
        // loop legal: no loop moves across it, no loop between them becomes parallel.
        if (keep_names && hoisted_ && (what == 5 || what == 7)) return;
        switch (what) {
            case 0:
            case 1: {
                if (l.vectorized) return;
                int factor = uni(1, 8);
                TailStrategy tail = tail_for(f, k, l, factor);
                Loop outer = l, inner = l;
                outer.name = fresh(l.name + "o");
                inner.name = fresh(l.name + "i");
                inner.parallel = false;  // the outer loop stays parallel
                inner.extent = factor;
                inner.constant = true;
                inner.from_inner = true;
                outer.extent = l.extent > 0 ? (l.extent + factor - 1) / factor : -1;
                st.split(handle(l), handle(outer), handle(inner), factor, tail);
                sched_ << sc << ".split(" << code(l) << ", " << code(outer) << ", " << code(inner)
                       << ", " << factor << ", " << tail_code(tail) << ");\n";
                d[static_cast<size_t>(i)] = outer;
                d.insert(d.begin() + i, inner);
                return;
            }
            case 2: {
                // Fuse with the next loop out, if it is of the same kind.
                if (i + 1 >= static_cast<int>(d.size())) return;
                Loop &o = d[static_cast<size_t>(i + 1)];
                if (o.rvar != l.rvar || o.vectorized || l.vectorized) return;
                Loop fused = l;
                fused.name = fresh(l.name + o.name.substr(0, 1) + "f");
                fused.parallel = false;
                fused.extent = l.extent > 0 && o.extent > 0 ? l.extent * o.extent : -1;
                fused.constant = l.constant && o.constant;
                fused.from_inner = l.from_inner || o.from_inner;
                st.fuse(handle(l), handle(o), handle(fused));
                sched_ << sc << ".fuse(" << code(l) << ", " << code(o) << ", " << code(fused)
                       << ");\n";
                s.parallel_loops -= l.parallel + o.parallel;
                d[static_cast<size_t>(i)] = fused;
                d.erase(d.begin() + i + 1);
                return;
            }
            case 3:
            case 4: {
                if (!pure || s.vectorized || l.parallel || has_parallel_inside(d, i)) return;
                static const int widths[] = {2, 4, 8, 16};
                int width = widths[uni(0, 3)];
                if (l.constant && l.extent <= 16 && coin(0.3)) {
                    st.vectorize(handle(l));
                    sched_ << sc << ".vectorize(" << code(l) << ");\n";
                    l.vectorized = true;
                } else {
                    if (has_loop(d, l.name + "_vectorized")) return;
                    TailStrategy tail = tail_for(f, k, l, width);
                    st.vectorize(handle(l), width, tail);
                    sched_ << sc << ".vectorize(" << code(l) << ", " << width << ", "
                           << tail_code(tail) << ");\n";
                    split_in_place(d, i, l.name + "_vectorized", width).vectorized = true;
                }
                s.vectorized = true;
                return;
            }
            case 5: {
                // Reorder: shuffle, keeping the reduction loops in their order.
                std::vector<Loop> order = d;
                std::shuffle(order.begin(), order.end(), rng_);
                std::vector<Loop> rvars;
                for (const Loop &x : d)
                    if (x.rvar) rvars.push_back(x);
                size_t next = 0;
                for (Loop &x : order)
                    if (x.rvar) x = rvars[next++];
                // No parallel loop inside a vectorized one.
                bool vector_seen = false;
                for (auto it = order.rbegin(); it != order.rend(); ++it) {
                    if (vector_seen && it->parallel) return;
                    vector_seen |= it->vectorized;
                }
                std::vector<VarOrRVar> handles;
                std::string list;
                for (const Loop &x : order) {
                    handles.push_back(handle(x));
                    list += (list.empty() ? "" : ", ") + code(x);
                }
                st.reorder(handles);
                sched_ << sc << ".reorder({" << list << "});\n";
                d = order;
                return;
            }
            case 6: {
                if (l.vectorized) return;
                if (l.constant && l.extent <= 8 && !l.parallel && coin(0.4)) {
                    st.unroll(handle(l));
                    sched_ << sc << ".unroll(" << code(l) << ");\n";
                    return;
                }
                if (has_loop(d, l.name + "_unrolled") || s.unrolled.count(l.name + "_unrolled"))
                    return;
                int factor = uni(2, 4);
                TailStrategy tail = tail_for(f, k, l, factor);
                st.unroll(handle(l), factor, tail);
                sched_ << sc << ".unroll(" << code(l) << ", " << factor << ", " << tail_code(tail)
                       << ");\n";
                s.unrolled.insert(l.name + "_unrolled");
                split_in_place(d, i, l.name + "_unrolled", factor);
                return;
            }
            case 7: {
                if (!pure || l.vectorized || l.parallel || s.parallel_loops >= 2 ||
                    has_vector_outside(d, i))
                    return;
                const std::string name = l.name;
                if (coin(0.3)) {
                    if (has_loop(d, l.name + "_in_task")) return;
                    int task = uni(1, 6);
                    TailStrategy tail = tail_for(f, k, l, task);
                    st.parallel(handle(l), task, tail);
                    sched_ << sc << ".parallel(" << code(l) << ", " << task << ", "
                           << tail_code(tail) << ");\n";
                    split_in_place(d, i, l.name + "_in_task", task);
                } else {
                    st.parallel(handle(l));
                    sched_ << sc << ".parallel(" << code(l) << ");\n";
                }
                for (Loop &x : d)
                    if (x.name == name) x.parallel = true;
                s.parallel_loops++;
                return;
            }
            case 8: {
                Loop renamed = l;
                renamed.name = fresh(l.name + "r");
                st.rename(handle(l), handle(renamed));
                sched_ << sc << ".rename(" << code(l) << ", " << code(renamed) << ");\n";
                l = renamed;
                return;
            }
            default: {
                // A tile of two adjacent pure loops.
                if (keep_names || i + 1 >= static_cast<int>(d.size())) return;
                Loop &o = d[static_cast<size_t>(i + 1)];
                if (l.rvar || o.rvar || l.vectorized || o.vectorized) return;
                int fx = uni(1, 8), fy = uni(1, 8);
                Loop both = l.extent < o.extent ? l : o;
                both.from_inner = l.from_inner || o.from_inner;
                TailStrategy tail = tail_for(f, k, both, std::max(fx, fy));
                Loop lo = l, li = l, oo = o, oi = o;
                lo.name = fresh(l.name + "o");
                li.name = fresh(l.name + "i");
                oo.name = fresh(o.name + "o");
                oi.name = fresh(o.name + "i");
                li.extent = fx;
                oi.extent = fy;
                li.constant = oi.constant = true;
                li.from_inner = oi.from_inner = true;
                lo.extent = l.extent > 0 ? (l.extent + fx - 1) / fx : -1;
                oo.extent = o.extent > 0 ? (o.extent + fy - 1) / fy : -1;
                li.parallel = oi.parallel = false;  // the outer loops stay parallel
                st.tile(handle(l), handle(o), handle(lo), handle(oo), handle(li), handle(oi), fx,
                        fy, tail);
                sched_ << sc << ".tile(" << code(l) << ", " << code(o) << ", " << code(lo) << ", "
                       << code(oo) << ", " << code(li) << ", " << code(oi) << ", " << fx << ", "
                       << fy << ", " << tail_code(tail) << ");\n";
                d[static_cast<size_t>(i)] = li;
                d[static_cast<size_t>(i + 1)] = oi;
                d.insert(d.begin() + i + 2, oo);
                d.insert(d.begin() + i + 2, lo);
                return;
            }
        }
    }

    /// Which (consumer, stage) pairs read Func `p`, looking through inlined Funcs unless
    /// `direct_only` (a read through an inlined Func may vanish: a Tuple element that does not
    /// read `p` may be the only one used).
    std::vector<std::pair<int, int>> users_of(int p, bool direct_only = false) const {
        std::vector<std::pair<int, int>> users;
        for (size_t c = 0; c < funcs_.size(); c++) {
            if (funcs_[c].inlined) continue;
            for (size_t k = 0; k < funcs_[c].stages.size(); k++) {
                const std::set<int> &calls = funcs_[c].stages[k].calls;
                if (direct_only ? calls.count(p) > 0 : reads_through_inlined(calls, p))
                    users.emplace_back(static_cast<int>(c), static_cast<int>(k));
            }
        }
        return users;
    }
    bool reads_through_inlined(const std::set<int> &calls, int p) const {
        for (int q : calls) {
            if (q == p) return true;
            if (funcs_[static_cast<size_t>(q)].inlined &&
                reads_through_inlined(funcs_[static_cast<size_t>(q)].stages[0].calls, p))
                return true;
        }
        return false;
    }

    /// The Funcs as FuzzCase::func_specs.
    void describe_funcs() {
        for (size_t i = 0; i < funcs_.size(); i++) {
            const FuncSpec &fs = funcs_[i];
            FuzzFunc d;
            d.f = fs.f;
            d.name = fs.name;
            d.inlined = fs.inlined;
            for (const StageSpec &st : fs.stages) {
                d.stage_loops.emplace_back();
                for (const Loop &l : st.dims)
                    d.stage_loops.back().push_back({l.name, l.rvar});
            }
            d.users = users_of(static_cast<int>(i));
            c_.func_specs.push_back(d);
        }
    }

    /// Inlining: only single-stage Funcs whose expanded expression stays small.
    void choose_inlining() {
        int n = static_cast<int>(funcs_.size());
        for (int i = 0; i < n - 1; i++) {
            FuncSpec &fs = funcs_[static_cast<size_t>(i)];
            int cost = 0;
            for (int q : fs.stages[0].calls) {
                const FuncSpec &p = funcs_[static_cast<size_t>(q)];
                cost += p.inlined ? p.cost : 1;
            }
            fs.cost = std::max(1, cost);
            bool can = fs.stages.size() == 1 && fs.cost <= 12;
            fs.inlined = can && coin(0.45);
        }
    }

    void schedule() {
        int n = static_cast<int>(funcs_.size());
        choose_inlining();
        // Loop directives on every stage that has loops of its own.
        for (int i = 0; i < n; i++) {
            FuncSpec &fs = funcs_[static_cast<size_t>(i)];
            if (fs.inlined) continue;
            if (i == n - 1) {
                fs.stages[0].dims[0].extent = c_.output_size[0];
                fs.stages[0].dims[1].extent = c_.output_size[1];
            }
            for (size_t k = 0; k < fs.stages.size(); k++) {
                int count = uni(0, 4);
                for (int j = 0; j < count; j++)
                    loop_directive(i, static_cast<int>(k), fs.stages[k],
                                   stage_of(i, static_cast<int>(k)),
                                   stage_code(i, static_cast<int>(k)), false);
            }
            if (atomic_ && fs.associative) atomic_directive(i);
        }
        // Placement, consumers first.
        for (int i = n - 2; i >= 0; i--) {
            FuncSpec &fs = funcs_[static_cast<size_t>(i)];
            if (fs.inlined) continue;
            place(i);
        }
        FuncSpec &out = funcs_.back();
        if (coin(0.1)) {
            out.f.bound(x_, 0, c_.output_size[0]);
            sched_ << out.name << ".bound(x, 0, " << c_.output_size[0] << ");\n";
        }
        if (coin(0.2)) {
            // A specialization of the output's pure stage, with its own loop directives.
            int k = uni(-2, 2);
            Stage sp = out.f.specialize(c_.param > k);
            specialized_ = true;
            sched_ << "Stage spec = " << out.name << ".specialize(p0 > " << k << ");\n";
            StageSpec copy = out.stages[0];
            int count = uni(1, 3);
            for (int j = 0; j < count; j++)
                loop_directive(n - 1, 0, copy, sp, "spec", true);
        }
    }

    /// Prefetches (from a stream of their own, so that every seed still makes the pipeline and
    /// schedule it made before): now and then, a stage prefetches an input it reads itself (a
    /// read through an inlined Func may vanish, see users_of), at one of
    /// its loops outside the vectorized ones, for a loop at or outside that one.
    void add_prefetches() {
        auto uni_p = [&](int lo, int hi) {
            return std::uniform_int_distribution<int>(lo, hi)(prefetch_rng_);
        };
        for (size_t f = 0; f < funcs_.size(); f++) {
            FuncSpec &fs = funcs_[f];
            if (fs.inlined) continue;
            for (size_t k = 0; k < fs.stages.size(); k++) {
                if (!std::bernoulli_distribution(0.25)(prefetch_rng_)) continue;
                const StageSpec &st = fs.stages[k];
                std::vector<int> read;
                for (size_t i = 0; i < inputs_.size(); i++)
                    if (st.inputs.count(static_cast<int>(i))) read.push_back(static_cast<int>(i));
                std::vector<int> loops;
                for (size_t j = 0; j < st.dims.size(); j++)
                    if (!has_vector_outside(st.dims, static_cast<int>(j) - 1))
                        loops.push_back(static_cast<int>(j));
                if (read.empty() || loops.empty()) continue;
                const InputSpec &in = inputs_[static_cast<size_t>(
                    read[static_cast<size_t>(uni_p(0, static_cast<int>(read.size()) - 1))])];
                int at = loops[static_cast<size_t>(uni_p(0, static_cast<int>(loops.size()) - 1))];
                int from = uni_p(at, static_cast<int>(st.dims.size()) - 1);
                int offset = uni_p(-2, 3);
                bool clamp = uni_p(0, 1) == 1;
                const Loop &la = st.dims[static_cast<size_t>(at)];
                const Loop &lf = st.dims[static_cast<size_t>(from)];
                stage_of(static_cast<int>(f), static_cast<int>(k))
                    .prefetch(
                        in.param, handle(la), handle(lf), offset,
                        clamp ? PrefetchBoundStrategy::Clamp : PrefetchBoundStrategy::GuardWithIf);
                sched_ << stage_code(static_cast<int>(f), static_cast<int>(k)) << ".prefetch("
                       << in.name << ", " << code(la) << ", " << code(lf) << ", " << offset
                       << ", PrefetchBoundStrategy::" << (clamp ? "Clamp" : "GuardWithIf")
                       << ");\n";
            }
        }
    }

    /// Where Func `i` is computed and stored.
    void place(int i) {
        FuncSpec &fs = funcs_[static_cast<size_t>(i)];
        std::vector<std::pair<int, int>> users = users_of(i);
        if (users.size() == 1 && coin(0.2) && place_around_consumer(i, users[0].first)) return;
        if (users.size() == 1 && coin(0.65)) {
            auto [c, k] = users[0];
            const StageSpec &cs = funcs_[static_cast<size_t>(c)].stages[static_cast<size_t>(k)];
            std::vector<int> loops;
            for (size_t j = 0; j < cs.dims.size(); j++)
                if (!has_vector_outside(cs.dims, static_cast<int>(j) - 1))
                    loops.push_back(static_cast<int>(j));
            if (!loops.empty()) {
                int j = pick(loops);
                const Loop &l = cs.dims[static_cast<size_t>(j)];
                const FuncSpec &cf = funcs_[static_cast<size_t>(c)];
                fs.f.compute_at(cf.f, handle(l));
                sched_ << fs.name << ".compute_at(" << cf.name << ", " << code(l) << ");\n";
                fs.at_func = c;
                fs.at_stage = k;
                fs.at_loop = l.name;
                // Storage further out, when no parallel loop lies between.
                if (coin(0.4)) {
                    int s = uni(j, static_cast<int>(cs.dims.size()));
                    bool crosses = false;
                    for (int m = j; m < s && m < static_cast<int>(cs.dims.size()); m++)
                        crosses |= cs.dims[static_cast<size_t>(m)].parallel;
                    if (s == static_cast<int>(cs.dims.size())) {
                        // At root: also outside the consumer's own compute loops.
                        if (!crosses && !crosses_parallel_outside(c)) {
                            fs.f.store_root();
                            sched_ << fs.name << ".store_root();\n";
                            hoisted_ = true;
                        }
                    } else if (!crosses && s > j) {
                        const Loop &sl = cs.dims[static_cast<size_t>(s)];
                        fs.f.store_at(cf.f, handle(sl));
                        hoisted_ = true;
                        sched_ << fs.name << ".store_at(" << cf.name << ", " << code(sl) << ");\n";
                    }
                }
                maybe_bound_extent(fs);
                maybe_reorder_storage(fs);
                return;
            }
        }
        fs.f.compute_root();
        sched_ << fs.name << ".compute_root();\n";
        maybe_reorder_storage(fs);
    }

    /// Computes Func `i` at a loop of the Func that its only reader `c` is computed in, at
    /// `c`'s loop or further out: a loop that holds every reader without being one of theirs.
    /// False (nothing done) where `c` is at root, inlined, or may round up a split.
    bool place_around_consumer(int i, int c) {
        FuncSpec &fs = funcs_[static_cast<size_t>(i)];
        const FuncSpec &cf = funcs_[static_cast<size_t>(c)];
        // Not at the output's loops: a specialization of the output, chosen later, may reorder
        // them and leave the reader outside the loop (which the compiler refuses).
        if (cf.inlined || cf.at_func < 0 || cf.may_round ||
            cf.at_func == static_cast<int>(funcs_.size()) - 1)
            return false;
        const FuncSpec &outer = funcs_[static_cast<size_t>(cf.at_func)];
        const StageSpec &os = outer.stages[static_cast<size_t>(cf.at_stage)];
        std::vector<int> loops;
        bool reached = false;
        for (size_t j = 0; j < os.dims.size(); j++) {
            reached |= os.dims[j].name == cf.at_loop;
            if (reached && !has_vector_outside(os.dims, static_cast<int>(j) - 1))
                loops.push_back(static_cast<int>(j));
        }
        if (loops.empty()) return false;
        const Loop &l = os.dims[static_cast<size_t>(pick(loops))];
        fs.f.compute_at(outer.f, handle(l));
        sched_ << fs.name << ".compute_at(" << outer.name << ", " << code(l) << ");\n";
        fs.at_func = cf.at_func;
        fs.at_stage = cf.at_stage;
        fs.at_loop = l.name;
        maybe_bound_extent(fs);
        maybe_reorder_storage(fs);
        return true;
    }

    /// Sometimes fixes how many points of x or y a Func computed at a loop computes there
    /// (bound_extent). Its readers may need more than the random extent allows: realizing the
    /// case then fails with the bound's runtime error, which the fuzzer accepts as the right
    /// outcome (FuzzCase::bounded_funcs); where they need no more, the values must still match.
    void maybe_bound_extent(FuncSpec &fs) {
        if (!std::bernoulli_distribution(0.2)(bound_rng_)) return;
        const bool in_x = std::bernoulli_distribution(0.5)(bound_rng_);
        const int extent = std::uniform_int_distribution<int>(1, 12)(bound_rng_);
        fs.f.bound_extent(in_x ? x_ : y_, extent);
        sched_ << fs.name << ".bound_extent(" << (in_x ? "x" : "y") << ", " << extent << ");\n";
        // Sometimes both: a tile of constant size, which lowering also computes as a copy for
        // the iterations whose windows start at the consumer's needs.
        if (std::bernoulli_distribution(0.4)(bound_rng_)) {
            const int other = std::uniform_int_distribution<int>(1, 12)(bound_rng_);
            fs.f.bound_extent(in_x ? y_ : x_, other);
            sched_ << fs.name << ".bound_extent(" << (in_x ? "y" : "x") << ", " << other << ");\n";
        }
        c_.bounded_funcs.push_back(fs.name);
    }

    /// Whether Func `c` is computed inside a parallel loop (through its consumers).
    bool crosses_parallel_outside(int c) const {
        const FuncSpec &fs = funcs_[static_cast<size_t>(c)];
        if (fs.at_func < 0) return false;
        const StageSpec &s =
            funcs_[static_cast<size_t>(fs.at_func)].stages[static_cast<size_t>(fs.at_stage)];
        bool inside = false;
        for (const Loop &l : s.dims) {
            inside |= l.name == fs.at_loop;
            if (inside && l.parallel) return true;
        }
        return crosses_parallel_outside(fs.at_func);
    }

    void maybe_reorder_storage(FuncSpec &fs) {
        if (!coin(0.15)) return;
        fs.f.reorder_storage(y_, x_);
        sched_ << fs.name << ".reorder_storage(y, x);\n";
    }

    /// The inputs and Param the Funcs the output reaches read: the AOT arguments.
    void find_arguments() {
        std::set<int> &reached = reached_;
        std::vector<int> work = {static_cast<int>(funcs_.size()) - 1};
        while (!work.empty()) {
            int f = work.back();
            work.pop_back();
            if (!reached.insert(f).second) continue;
            for (const StageSpec &s : funcs_[static_cast<size_t>(f)].stages)
                work.insert(work.end(), s.calls.begin(), s.calls.end());
        }
        // A consumer of an inlined Tuple may read only some of its values, so what those read
        // may not be in the pipeline at all: such Funcs are not certainly reached, and the
        // arguments are only known to be a superset.
        std::vector<int> sure = {static_cast<int>(funcs_.size()) - 1};
        while (!sure.empty()) {
            int f = sure.back();
            sure.pop_back();
            if (!surely_reached_.insert(f).second) continue;
            const FuncSpec &fs = funcs_[static_cast<size_t>(f)];
            if (fs.inlined && fs.types.size() > 1) {
                c_.arguments_exact = false;
                continue;
            }
            for (const StageSpec &s : fs.stages)
                sure.insert(sure.end(), s.calls.begin(), s.calls.end());
        }
        c_.input_read.assign(inputs_.size(), false);
        c_.reads_param = specialized_;
        for (int f : reached) {
            for (int i : funcs_[static_cast<size_t>(f)].inputs_read)
                c_.input_read[static_cast<size_t>(i)] = true;
            c_.reads_param |= funcs_[static_cast<size_t>(f)].param_read;
        }
    }

    // ---- illegal directives ----

    /// A random Func other than the output that the output certainly reads, or -1.
    int random_reached_producer() {
        int n = static_cast<int>(funcs_.size());
        if (n < 2) return -1;
        int i = uni(0, n - 2);
        return surely_reached_.count(i) ? i : -1;
    }

    void add_illegal_directive() {
        int n = static_cast<int>(funcs_.size());
        FuncSpec &out = funcs_.back();
        std::vector<std::function<bool()>> options;
        std::ostringstream &s = sched_;
        auto note = [&](const std::string &what) { c_.illegal_directive = what; };
        // A loop name the stage does not have.
        options.push_back([&] {
            out.f.split(Var("nowhere"), Var("a"), Var("b"), 4);
            note(out.name + ".split(Var(\"nowhere\"), ...)");
            return true;
        });
        // A factor of zero or below.
        options.push_back([&] {
            int factor = uni(-3, 0);
            const Loop &l = out.stages[0].dims[0];
            note(out.name + ".split(" + code(l) + ", ..., " + std::to_string(factor) + ")");
            out.f.split(handle(l), Var(fresh("a")), Var(fresh("b")), factor);
            return true;
        });
        // A vector width that is not a constant.
        options.push_back([&] {
            const Loop &l = out.stages[0].dims[0];
            note(out.name + ".vectorize(" + code(l) + ", p0)");
            out.f.vectorize(handle(l), c_.param);
            return true;
        });
        // A loop listed twice in a reorder.
        options.push_back([&] {
            const Loop &l = out.stages[0].dims[0];
            note(out.name + ".reorder(" + code(l) + ", " + code(l) + ")");
            out.f.reorder(handle(l), handle(l));
            return true;
        });
        // A specialization on something other than Params.
        options.push_back([&] {
            note(out.name + ".specialize(x > 3)");
            out.f.specialize(x_ > 3);
            return true;
        });
        // compute_at a Func that does not read it (its own producer, or itself).
        options.push_back([&] {
            int i = random_reached_producer();
            if (i < 0) return false;
            FuncSpec &fs = funcs_[static_cast<size_t>(i)];
            int t = uni(0, i);
            if (!surely_reached_.count(t)) return false;
            FuncSpec &target = funcs_[static_cast<size_t>(t)];
            note(fs.name + ".compute_at(" + target.name + ", x)");
            fs.f.compute_at(target.f, x_);
            return true;
        });
        // compute_at a loop the consumer does not have.
        options.push_back([&] {
            int i = random_reached_producer();
            if (i < 0) return false;
            FuncSpec &fs = funcs_[static_cast<size_t>(i)];
            note(fs.name + ".compute_at(" + out.name + ", Var(\"nowhere\"))");
            fs.f.compute_at(out.f, Var("nowhere"));
            return true;
        });
        // Storage inside the loop where it is computed.
        options.push_back([&] {
            int i = random_reached_producer();
            if (i < 0) return false;
            FuncSpec &fs = funcs_[static_cast<size_t>(i)];
            std::vector<std::pair<int, int>> users = users_of(i);
            if (users.size() != 1 || fs.inlined) return false;
            auto [c, k] = users[0];
            const StageSpec &cs = funcs_[static_cast<size_t>(c)].stages[static_cast<size_t>(k)];
            std::vector<int> loops;
            for (size_t j = 0; j < cs.dims.size(); j++)
                if (!cs.dims[j].vectorized) loops.push_back(static_cast<int>(j));
            if (loops.size() < 2) return false;
            int inner = loops[0], outer = loops.back();
            const FuncSpec &cf = funcs_[static_cast<size_t>(c)];
            const Loop &li = cs.dims[static_cast<size_t>(inner)];
            const Loop &lo = cs.dims[static_cast<size_t>(outer)];
            note(fs.name + ".compute_at(" + cf.name + ", " + code(lo) + ").store_at(" + cf.name +
                 ", " + code(li) + ")");
            fs.f.compute_at(cf.f, handle(lo)).store_at(cf.f, handle(li));
            return true;
        });
        // Stored at a loop while computed at root.
        options.push_back([&] {
            int i = random_reached_producer();
            if (i < 0) return false;
            FuncSpec &fs = funcs_[static_cast<size_t>(i)];
            note(fs.name + ".compute_root().store_at(" + out.name + ", x)");
            fs.f.compute_root().store_at(out.f, x_);
            return true;
        });
        // Storage outside a parallel loop the Func is computed in.
        options.push_back([&] {
            if (n < 2) return false;
            int i = n - 2;
            FuncSpec &fs = funcs_[static_cast<size_t>(i)];
            if (!surely_reached_.count(i)) return false;
            std::vector<std::pair<int, int>> users = users_of(i);
            if (users.size() != 1 || users[0].first != n - 1 || users[0].second != 0 || fs.inlined)
                return false;
            const Loop &inner = out.stages[0].dims[0];
            if (inner.vectorized || inner.parallel) return false;
            Loop y = out.stages[0].dims.back();
            if (y.name == inner.name || y.vectorized) return false;
            note(fs.name + ".compute_at(" + out.name + ", " + code(inner) + ").store_root() with " +
                 out.name + ".parallel(" + code(y) + ")");
            if (!y.parallel) out.f.parallel(handle(y));
            fs.f.compute_at(out.f, handle(inner)).store_root();
            return true;
        });
        // A reduction loop with a tail strategy it cannot use.
        options.push_back([&] {
            for (FuncSpec &fs : funcs_) {
                if (!surely_reached_.count(static_cast<int>(&fs - funcs_.data()))) continue;
                if (fs.inlined || fs.stages.size() < 2) continue;
                StageSpec &u = fs.stages[1];
                for (const Loop &l : u.dims) {
                    if (!l.rvar || l.vectorized) continue;
                    TailStrategy t = coin() ? TailStrategy::RoundUp : TailStrategy::ShiftInwards;
                    note(fs.name + ".update(0).split(" + code(l) + ", ..., 2, " + tail_code(t) +
                         ")");
                    fs.f.update(0).split(handle(l), RVar(fresh("a")), RVar(fresh("b")), 2, t);
                    return true;
                }
            }
            return false;
        });
        // A race: a sum's reduction loop run in parallel or as a vector.
        options.push_back([&] {
            for (FuncSpec &fs : funcs_) {
                if (!surely_reached_.count(static_cast<int>(&fs - funcs_.data()))) continue;
                if (fs.inlined || fs.stages.size() < 2 || fs.types.size() > 1 || fs.race_free_scan)
                    continue;
                StageSpec &u = fs.stages[1];
                for (const Loop &l : u.dims) {
                    if (!l.rvar || l.vectorized || l.parallel) continue;
                    // The window and the histogram write one point from several
                    // iterations; the scan reads what the previous iteration wrote.
                    bool vec = coin();
                    note(fs.name + ".update(0)." + (vec ? "vectorize(" : "parallel(") + code(l) +
                         ")");
                    if (vec)
                        fs.f.update(0).vectorize(handle(l));
                    else
                        fs.f.update(0).parallel(handle(l));
                    return true;
                }
            }
            return false;
        });
        // Several consumers of a Func computed inside one of them.
        options.push_back([&] {
            for (int i = 0; i < n - 1; i++) {
                FuncSpec &fs = funcs_[static_cast<size_t>(i)];
                if (!surely_reached_.count(i)) return false;
                std::vector<std::pair<int, int>> users = users_of(i, true);
                users.erase(std::remove_if(users.begin(), users.end(),
                                           [&](const std::pair<int, int> &u) {
                                               return !surely_reached_.count(u.first);
                                           }),
                            users.end());
                if (fs.inlined || users.size() < 2 || users[0].first == users[1].first) continue;
                const FuncSpec &cf = funcs_[static_cast<size_t>(users[0].first)];
                const Loop &l = cf.stages[static_cast<size_t>(users[0].second)].dims.back();
                note(fs.name + ".compute_at(" + cf.name + ", " + code(l) + ") with two consumers");
                fs.f.compute_at(cf.f, handle(l));
                return true;
            }
            return false;
        });
        // compute_at a Func that is inlined.
        options.push_back([&] {
            for (int i = 1; i < n - 1; i++) {
                FuncSpec &consumer = funcs_[static_cast<size_t>(i)];
                if (!consumer.inlined || !surely_reached_.count(i)) continue;
                int j = uni(0, i - 1);
                if (!surely_reached_.count(j)) continue;
                FuncSpec &fs = funcs_[static_cast<size_t>(j)];
                note(fs.name + ".compute_at(" + consumer.name + ", x) with " + consumer.name +
                     " inlined");
                fs.f.compute_at(consumer.f, x_);
                return true;
            }
            return false;
        });
        for (int attempt = 0; attempt < 50; attempt++) {
            bool applied = false;
            try {
                applied = pick(options)();
            } catch (const CompileError &e) {
                // Refused at once, as it should be.
                c_.refused_early = true;
                c_.early_message = e.what();
                applied = true;
            }
            if (applied) {
                s << "// illegal: " << c_.illegal_directive << "\n";
                return;
            }
        }
    }

    std::mt19937_64 rng_;
    std::mt19937_64 bound_rng_;
    std::mt19937_64 constraint_rng_;
    std::mt19937_64 prefetch_rng_;
    std::mt19937_64 atomic_rng_;
    bool atomic_ = false;
    FuzzCase c_;
    std::vector<FuncSpec> funcs_;
    std::vector<InputSpec> inputs_;
    std::ostringstream alg_, sched_;
    Var x_{"x"}, y_{"y"};
    int fresh_ = 0;
    bool specialized_ = false;
    bool no_gather_ = false;
    bool hoisted_ = false;
    std::set<int> reached_;               // the Funcs the output may read, directly or not
    std::set<int> surely_reached_;        // those it certainly reads                // some
                                          // Func is stored outside the loop it is computed in
    int min_width_ = 1, min_height_ = 1;  // what the output's updates write
    int current_ = 0;
    std::set<int> used_;
    std::set<int> calls_;
    std::set<int> stage_inputs_;
    E base_x_, base_y_;
};

}  // namespace

std::string FuzzCase::reproduction() const {
    std::ostringstream s;
    s << "// dsl_fuzz case " << seed << ": " << funcs << " Funcs, output " << output_size[0] << "x"
      << output_size[1] << "\n"
      << "Var x(\"x\"), y(\"y\");\n"
      << "Param<int32_t> p0(\"p0\", 0);\n"
      << algorithm_code << schedule_code << "Realization r = " << output.name() << ".realize({"
      << output_size[0] << ", " << output_size[1] << "}"
      << (target.has_gpu_feature() || target.has_feature(Target::Feature::NPU)
              ? ", Target(\"" + target.to_string() + "\")"
              : "")
      << ");\n";
    return s.str();
}

FuzzCase make_case(uint64_t seed) {
    return Generator(seed).build(false);
}

FuzzCase make_unscheduled_case(uint64_t seed) {
    return Generator(seed).build(false, false);
}

FuzzCase make_atomic_case(uint64_t seed) {
    Generator g(seed);
    g.set_atomic();
    FuzzCase c = g.build(false);
    c.atomic_scheduled = true;
    return c;
}

FuzzCase make_illegal_case(uint64_t seed) {
    return Generator(seed).build(true);
}

}  // namespace dsl::fuzz
