#include "lowering/OffloadNPULoops.h"

#include <map>
#include <optional>
#include <sstream>

#include "dsl/Math.h"
#include "ir/Associativity.h"
#include "ir/Error.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "schedule/Schedule.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// Loops of each role (rows, output channels, contraction) the runtime's GEMM takes.
constexpr size_t kSlots = 4;
/// And of depthwise channels.
constexpr size_t kDiagonalSlots = 2;
/// Loops of a Func that converts an NPU contraction's results to bytes.
constexpr size_t kStoreSlots = 8;

/// One loop of the offloaded nest.
struct Loop {
    std::string name;
    Expr min, extent;
};

/// How a buffer is indexed in the nest: its first element's index and a stride per loop.
struct Access {
    std::string buffer;
    Expr base;
    std::vector<Expr> strides;
    bool uses(size_t loop) const { return !is_const_zero(strides[loop]); }
};

std::string short_text(const Expr &e) {
    std::ostringstream s;
    s << e;
    std::string t = s.str();
    return t.size() > 200 ? t.substr(0, 200) + "..." : t;
}

std::string short_text(const Stmt &st) {
    std::ostringstream s;
    s << st;
    std::string t = s.str();
    return t.size() > 200 ? t.substr(0, 200) + "..." : t;
}

/// The coefficient of `var` in `e` when `e` is linear in it (sums, differences, products by
/// terms without it, integer casts); nothing when it is not.
std::optional<Expr> coefficient(const Expr &e, const std::string &var) {
    if (!expr_uses_var(e, var)) return make_zero(e.type());
    if (const auto *v = e.as<Variable>()) {
        if (v->name == var) return make_one(e.type());
        return std::nullopt;
    }
    if (const auto *add = e.as<Add>()) {
        auto a = coefficient(add->a, var), b = coefficient(add->b, var);
        if (a && b) return simplify(*a + *b);
    } else if (const auto *sub = e.as<Sub>()) {
        auto a = coefficient(sub->a, var), b = coefficient(sub->b, var);
        if (a && b) return simplify(*a - *b);
    } else if (const auto *mul = e.as<Mul>()) {
        if (!expr_uses_var(mul->a, var)) {
            if (auto b = coefficient(mul->b, var)) return simplify(mul->a * *b);
        } else if (!expr_uses_var(mul->b, var)) {
            if (auto a = coefficient(mul->a, var)) return simplify(*a * mul->b);
        }
    } else if (const auto *c = e.as<Cast>()) {
        if (c->type.is_int() && c->value.type().is_int() && c->type.is_scalar()) {
            if (auto inner = coefficient(c->value, var)) return simplify(cast(c->type, *inner));
        }
    }
    return std::nullopt;
}

/// The outermost loop of a stage (its dims run innermost first; Var::outermost()'s loop,
/// schedule::kOutermost, is not one of the stage's own); null for a stage with no loops.
const schedule::Dim *outermost_loop(const schedule::StageSchedule &s) {
    const schedule::Dim *found = nullptr;
    for (const schedule::Dim &d : s.dims) {
        if (d.var != schedule::kOutermost) found = &d;
    }
    return found;
}

/// Whether the outermost loop of a stage runs on the NPU (npu_gemm: all of the stage).
bool all_on_npu(const schedule::StageSchedule &s) {
    const schedule::Dim *outer = outermost_loop(s);
    return outer && outer->for_type == ForType::NPU;
}

class Offloader : public IRMutator {
  public:
    explicit Offloader(const Environment &env) : env_(env) {}
    bool offloaded = false;

  protected:
    using IRMutator::visit;
    Stmt visit(const For *op) override {
        if (op->for_type != ForType::NPU) return IRMutator::visit(op);
        offloaded = true;
        return offload(op);
    }
    Stmt visit(const LetStmt *op) override {
        // The lets in scope, to close a statement that moves out of their scope (below).
        Expr value = mutate(op->value);
        scope_.push_back({op->name, value});
        Stmt body = mutate(op->body);
        scope_.pop_back();
        return LetStmt::make(op->name, value, body);
    }

  public:
    /// Programs (a contraction and its requantization) waiting for the loops of the Func that
    /// converts their results to bytes, by that Func's name (narrowing_consumer).
    std::map<std::string, Stmt> stores_pending_;
    /// A contraction whose requantization (the next stage, also on the NPU) had not been met
    /// yet: its call, closed over the lets around it, to run fused with it.
    struct Pending {
        Stmt call;
        int stage = 0;
    };
    std::map<std::string, Pending> pending;

  private:
    /// The Func and stage a loop belongs to ("f.s1.y": stage 1 of f), and how to name them.
    void identify(const std::string &loop) {
        func_.clear();
        for (const auto &[name, f] : env_.funcs) {
            const std::string prefix = name + ".s";
            if (loop.compare(0, prefix.size(), prefix) != 0) continue;
            size_t dot = loop.find('.', prefix.size());
            if (dot == std::string::npos) continue;
            const std::string digits = loop.substr(prefix.size(), dot - prefix.size());
            if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
                continue;
            if (name.size() > func_.size()) {
                func_ = name;
                stage_ = std::stoi(digits);
                var_ = loop.substr(dot + 1);
            }
        }
        internal_assert(!func_.empty()) << "an NPU loop of no Func: " << loop;
        where_ = stage_ == 0
                     ? "Func \"" + func_ + "\""
                     : "update " + std::to_string(stage_ - 1) + " of Func \"" + func_ + "\"";
        where_ += " (npu at loop \"" + var_ + "\")";
    }

    /// The index of `index` as a base and a stride per loop; refuses what is not affine. (An
    /// index whose step along each loop is the same at every point of every loop is affine.)
    Access analyse(const std::string &buffer, const Expr &index) const {
        Access a;
        a.buffer = buffer;
        std::map<std::string, Expr> at_min;
        for (const Loop &l : loops_)
            at_min[l.name] = l.min;
        a.base = simplify(substitute(at_min, index));
        for (const Loop &l : loops_) {
            std::optional<Expr> stride = coefficient(index, l.name);
            for (const Loop &other : loops_) {
                user_assert(stride && !expr_uses_var(*stride, other.name))
                    << where_ << ": the index of \"" << buffer << "\" (" << short_text(index)
                    << ") is not affine in the loops; the NPU's DMA moves strided blocks, so "
                       "each coordinate must be a loop times a constant stride plus a constant.";
            }
            a.strides.push_back(*stride);
        }
        return a;
    }

    /// Narrows the loops to where `condition` holds: a guard of a split's tail (loop + terms
    /// outside the nest <= a bound outside the nest), or several joined by &&.
    void clamp_loops(const Expr &condition) {
        if (const auto *both = condition.as<And>()) {
            clamp_loops(both->a);
            clamp_loops(both->b);
            return;
        }
        // As difference <= 0.
        Expr difference;
        if (const auto *le = condition.as<LE>()) difference = le->a - le->b;
        if (const auto *lt = condition.as<LT>()) difference = lt->a - lt->b + 1;
        if (const auto *ge = condition.as<GE>()) difference = ge->b - ge->a;
        if (const auto *gt = condition.as<GT>()) difference = gt->b - gt->a + 1;
        Loop *loop = nullptr;
        int sign = 0;
        if (difference.defined()) {
            for (Loop &l : loops_) {
                if (!expr_uses_var(difference, l.name)) continue;
                std::optional<Expr> c = coefficient(difference, l.name);
                std::optional<int64_t> k = c ? as_const_int(*c) : std::nullopt;
                if (loop || !k || (*k != 1 && *k != -1)) {
                    loop = nullptr;
                    sign = 0;
                    break;
                }
                loop = &l;
                sign = static_cast<int>(*k);
            }
        }
        user_assert(loop)
            << where_ << ": the NPU loop holds a condition (" << short_text(condition)
            << ") that is not a bound on one of its loops; the NPU runs whole rectangles. Split "
               "by factors that divide, or offload the loop outside the split.";
        Expr rest = simplify(substitute(loop->name, make_zero(difference.type()), difference));
        if (sign > 0) {
            // loop <= -rest
            Expr end = Min::make(loop->min + loop->extent, -rest + 1);
            loop->extent = simplify(Max::make(end - loop->min, 0));
        } else {
            // loop >= rest
            Expr end = loop->min + loop->extent;
            loop->min = simplify(Max::make(loop->min, rest));
            loop->extent = simplify(Max::make(end - loop->min, 0));
        }
    }

    /// An operand i32(load of int8), or refuses it.
    const Load *operand(const Expr &e, const Expr &whole) const {
        const auto *cast = e.as<Cast>();
        const Load *load = cast ? cast->value.as<Load>() : nullptr;
        user_assert(cast && load && load->type.is_scalar())
            << where_ << ": the update is not a contraction the NPU's GEMM core runs; it must be "
            << "f(...) = f(...) + i32(a(...)) * i32(b(...)) with a and b of type int8, but the "
            << "product is " << short_text(whole) << ".";
        user_assert(load->type == Int(8))
            << where_ << ": \"" << load->name << "\" is " << load->type
            << "; the NPU's GEMM core multiplies int8 by int8 (a uint8 value with a zero point "
               "maps once shifted into int8: subtract 128 from it and add 128 times the sum of "
               "the other operand).";
        user_assert(is_const_true(load->predicate))
            << where_ << ": \"" << load->name << "\" is read under a condition, which the GEMM "
            << "core cannot do; pad the operand instead.";
        return load;
    }

    /// An update c[index] = clamp(zero_point + multiply_by_quantized_multiplier(c[index],
    /// m[...], s[...]), lo, hi), with m and s read along one loop (the channels): a call of the
    /// runtime's requantization on the NPU's ALU; undefined when the update is not one.
    Stmt requantization(const For *op, const std::string &buffer, const Expr &value,
                        const Expr &index, bool fused) {
        // The clamp: max(min(x, hi), lo) or min(max(x, lo), hi), with constant bounds.
        Expr x;
        std::optional<int64_t> lo, hi;
        if (const auto *mx = value.as<Max>()) {
            if (const auto *mn = mx->a.as<Min>()) {
                x = mn->a;
                hi = as_const_int(mn->b);
                lo = as_const_int(mx->b);
            }
        } else if (const auto *outer = value.as<Min>()) {
            if (const auto *inner = outer->a.as<Max>()) {
                x = inner->a;
                lo = as_const_int(inner->b);
                hi = as_const_int(outer->b);
            }
        }
        if (!x.defined() || !lo || !hi) return Stmt();
        // The zero point: zp + y, y + zp, or y alone.
        Expr y = x;
        int64_t zero_point = 0;
        if (const auto *add = x.as<Add>()) {
            if (auto k = as_const_int(add->a)) {
                zero_point = *k;
                y = add->b;
            } else if (auto k2 = as_const_int(add->b)) {
                zero_point = *k2;
                y = add->a;
            }
        }
        // y must be the rescaling of c[index] by two other loads, rebuilt and compared.
        class Loads : public IRVisitor {
          public:
            std::vector<const Load *> found;

          protected:
            using IRVisitor::visit;
            void visit(const Load *l) override {
                for (const Load *f : found) {
                    if (f->name == l->name && equal(f->index, l->index)) return;
                }
                found.push_back(l);
                IRVisitor::visit(l);
            }
        } loads;
        loads.include(y);
        const Load *self = nullptr;
        std::vector<const Load *> others;
        for (const Load *l : loads.found) {
            if (l->name == buffer && equal(l->index, index)) {
                self = l;
            } else {
                others.push_back(l);
            }
        }
        if (!self || others.size() != 2) return Stmt();
        const Load *mult = nullptr, *shift = nullptr;
        for (int order = 0; order < 2 && !mult; order++) {
            const Load *m = others[order], *s = others[1 - order];
            Expr rebuilt = multiply_by_quantized_multiplier(Expr(self), Expr(m), Expr(s));
            if (equal(rebuilt, y)) {
                mult = m;
                shift = s;
            }
        }
        if (!mult) return Stmt();
        user_assert(mult->type == Int(32) && shift->type == Int(32))
            << where_ << ": the requantization's multiplier \"" << mult->name << "\" and shift \""
            << shift->name << "\" must be int32.";
        Access c = analyse(buffer, index), m = analyse(mult->name, mult->index),
               s = analyse(shift->name, shift->index);
        // One loop of channels (the multipliers' and shifts'), the rest rows.
        int channel = -1;
        std::vector<int> rows;
        for (size_t i = 0; i < loops_.size(); i++) {
            user_assert(c.uses(i))
                << where_ << ": the loop \"" << loops_[i].name
                << "\" does not move along the requantized values; the NPU's ALU works on them "
                   "point by point.";
            if (m.uses(i) || s.uses(i)) {
                user_assert(channel < 0)
                    << where_ << ": the multipliers and shifts vary along two loops (\""
                    << loops_[channel].name << "\" and \"" << loops_[i].name
                    << "\"); the NPU's ALU takes them per output channel, one loop.";
                channel = static_cast<int>(i);
            } else {
                rows.push_back(static_cast<int>(i));
            }
        }
        user_assert(channel >= 0 && rows.size() <= kSlots)
            << where_
            << ": a requantization on the NPU needs one loop of channels (the "
               "multipliers' and shifts') and at most "
            << kSlots << " others.";
        const schedule::StageSchedule &sched = env_.func(func_).stage(stage_).schedule;
        auto i64 = [](const Expr &e) { return simplify(cast(Int(64), e)); };
        auto i32 = [](const Expr &e) { return simplify(cast(Int(32), e)); };
        std::vector<Expr> args = {StringImm::make(func_), Variable::make(Handle(), buffer),
                                  i64(c.base)};
        for (size_t slot = 0; slot < kSlots; slot++) {
            const bool used = slot < rows.size();
            const int l = used ? rows[slot] : 0;
            args.push_back(used ? i32(loops_[l].extent) : Expr(int32_t(1)));
            args.push_back(used ? i64(c.strides[l]) : Expr(int64_t(0)));
        }
        args.push_back(i32(loops_[channel].extent));
        args.push_back(i64(c.strides[channel]));
        args.push_back(i64(m.strides[channel]));
        args.push_back(i64(s.strides[channel]));
        args.push_back(Variable::make(Handle(), mult->name));
        args.push_back(i64(m.base));
        args.push_back(Variable::make(Handle(), shift->name));
        args.push_back(i64(s.base));
        args.push_back(Expr(int32_t(zero_point)));
        args.push_back(Expr(int32_t(*lo)));
        args.push_back(Expr(int32_t(*hi)));
        if (!fused) return runtime_call(op, "dsl_runtime_npu_requantize", args, sched);
        // Handed to the contraction's call that follows, which runs it in its own program
        // (or after it, where the two do not cover the same values).
        args.push_back(Expr(int32_t(sched.npu_tile_rows)));
        args.push_back(Expr(int32_t(sched.npu_copies)));
        return Evaluate::make(Call::make(Int(32), "dsl_runtime_npu_next_requantization", args,
                                         Call::CallType::Extern));
    }

    /// The call of a runtime function `name` with `args` and the schedule's tile rows and
    /// copies, returning from the pipeline with its error code if it fails.
    static Stmt runtime_call(const For *op, const char *name, std::vector<Expr> args,
                             const schedule::StageSchedule &sched) {
        args.push_back(Expr(int32_t(sched.npu_tile_rows)));
        args.push_back(Expr(int32_t(sched.npu_copies)));
        const std::string status = op->name + ".npu_status";
        Expr call = Call::make(Int(32), name, args, Call::CallType::Extern);
        Expr result = Variable::make(Int(32), status);
        return LetStmt::make(status, call, AssertStmt::make(result == 0, result));
    }

    Stmt offload(const For *op) {
        identify(op->name);
        // The nest: the NPU loop and the serial loops inside it, with the lets between them.
        loops_.clear();
        std::map<std::string, Expr> lets;
        Stmt body = op;
        for (;;) {
            if (const auto *loop = body.as<For>()) {
                user_assert(loop == op || loop->for_type == ForType::Serial)
                    << where_ << ": the loop \"" << loop->name << "\" inside it is "
                    << to_string(loop->for_type)
                    << "; the NPU runs the loops inside npu() itself, so leave them serial.";
                loops_.push_back(
                    {loop->name, substitute(lets, loop->min), substitute(lets, loop->extent)});
                body = loop->body;
            } else if (const auto *let = body.as<LetStmt>()) {
                lets[let->name] = substitute(lets, let->value);
                body = let->body;
            } else if (const auto *guard = body.as<IfThenElse>();
                       guard && !guard->else_case.defined()) {
                clamp_loops(substitute(lets, guard->condition));
                body = guard->then_case;
            } else {
                break;
            }
        }
        const auto *store = body.as<Store>();
        user_assert(store) << where_
                           << ": the loops inside the NPU loop must hold only the update, but they "
                           << "hold " << short_text(body)
                           << ". Funcs computed inside the NPU loop, and other stages, do not map.";
        for (const Loop &l : loops_) {
            for (const Loop &other : loops_) {
                user_assert(!expr_uses_var(l.min, other.name) &&
                            !expr_uses_var(l.extent, other.name))
                    << where_ << ": the bounds of the loop \"" << l.name
                    << "\" depend on the loop \"" << other.name
                    << "\"; the NPU runs rectangular nests only.";
            }
        }
        const Expr value = substitute(lets, store->value);
        const Expr index = substitute(lets, store->index);
        user_assert(is_const_true(store->predicate))
            << where_ << ": the update stores under a condition, which the NPU cannot do.";
        if (stage_ == 0) return narrowing_store(op, store, value, index);
        user_assert(value.type() == Int(32)) << where_ << ": the update computes " << value.type()
                                             << "; the NPU's GEMM core accumulates int32.";
        // A contraction of the stage before, deferred to run with this stage's requantization.
        std::optional<Pending> before;
        if (auto it = pending.find(func_); it != pending.end()) {
            before = it->second;
            pending.erase(it);
        }
        const bool fuse = before && before->stage == stage_ - 1;
        if (Stmt r = requantization(op, store->name, value, index, fuse); r.defined()) {
            if (!before) return r;
            Stmt program = Block::make(r, before->call);
            // The whole of f, summed and requantized in one program, converted to bytes by a
            // Func on the NPU: that Func's loops run the program, with the bytes stored by the
            // NPU (narrowing_store).
            const std::string narrow = fuse ? narrowing_consumer(func_) : "";
            if (narrow.empty()) return program;
            for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
                program = substitute(it->first, it->second, program);
            stores_pending_[narrow] = program;
            return Evaluate::make(0);
        }
        if (before) return Block::make(before->call, offload_contraction(op, store, value, index));
        return offload_contraction(op, store, value, index);
    }

    /// The Func that converts the values of `c` (all of them computed at this level by the NPU:
    /// its last stage, a requantization, whose loops the NPU runs whole) to int8 or uint8 point
    /// by point, `g(x, ...) = cast<int8_t>(c(x, ...))`, computed at root with its loops on the
    /// NPU, when it is the only Func that reads c; empty otherwise.
    std::string narrowing_consumer(const std::string &c) const {
        const lang::Function &f = env_.func(c);
        if (env_.is_output(c) || stage_ != f.stages() - 1 || has_specializations(f)) return "";
        const schedule::Dim *outer = outermost_loop(f.stage(stage_).schedule);
        if (!outer || outer->var != var_) return "";
        std::string reader;
        for (const auto &[name, g] : env_.funcs) {
            if (name == c) continue;
            CallsFunc reads(c);
            lang::visit_definitions(g, reads);
            if (!reads.found) continue;
            if (!reader.empty()) return "";  // read by two Funcs
            reader = name;
        }
        if (reader.empty()) return "";
        const lang::Function &g = env_.func(reader);
        const bool at_root = env_.is_output(reader) ||
                             g.schedule().compute_level.kind == schedule::LoopLevel::Kind::Root;
        if (!at_root || has_specializations(g) || !converts_to_bytes(g, c)) return "";
        return all_on_npu(g.stage(0).schedule) ? reader : "";
    }

    /// A pure definition on the NPU: a conversion of an NPU program's int32 results to bytes.
    /// Where that program waits for it (stores_pending_), its loops hand their layout to the
    /// program (dsl_runtime_npu_next_store) and run it: the NPU's STORE writes the bytes.
    /// Otherwise the conversion runs on the host.
    Stmt narrowing_store(const For *op, const Store *store, const Expr &value, const Expr &index) {
        const auto *conversion = value.as<Cast>();
        const Load *load = conversion ? conversion->value.as<Load>() : nullptr;
        user_assert(load && load->type == Int(32) && is_const_true(load->predicate) &&
                    (conversion->type == Int(8) || conversion->type == UInt(8)))
            << where_
            << ": a pure definition runs on the NPU only as the conversion of an NPU "
               "contraction's int32 results to int8 or uint8, g(x, ...) = cast<int8_t>(f(x, "
               "...)), but it is "
            << short_text(value)
            << ". Offload the update that accumulates the products (f.update().npu_gemm()).";
        auto pending = stores_pending_.find(func_);
        if (pending == stores_pending_.end()) {
            // No program of the NPU computes all of what it converts alone, requantized in
            // the same program: the conversion is an ordinary loop of the host.
            return For::make(op->name, op->min, op->extent, ForType::Serial, DeviceAPI::None,
                             op->body);
        }
        Stmt program = pending->second;
        stores_pending_.erase(pending);
        user_assert(loops_.size() <= kStoreSlots)
            << where_ << ": " << loops_.size() << " loops; a conversion on the NPU takes at most "
            << kStoreSlots << ".";
        Access d = analyse(store->name, index), c = analyse(load->name, load->index);
        auto i64 = [](const Expr &e) { return simplify(cast(Int(64), e)); };
        std::vector<Expr> args = {Variable::make(Handle(), d.buffer), i64(d.base),
                                  Variable::make(Handle(), c.buffer), i64(c.base)};
        for (size_t slot = 0; slot < kStoreSlots; slot++) {
            const bool used = slot < loops_.size();
            args.push_back(used ? simplify(cast(Int(32), loops_[slot].extent)) : Expr(int32_t(1)));
            args.push_back(used ? i64(c.strides[slot]) : Expr(int64_t(0)));
            args.push_back(used ? i64(d.strides[slot]) : Expr(int64_t(0)));
        }
        // dsl_npu_format: int8 1, uint8 2.
        args.push_back(Expr(int32_t(conversion->type == Int(8) ? 1 : 2)));
        const std::string status = op->name + ".npu_status";
        Expr call = Call::make(Int(32), "dsl_runtime_npu_next_store", args, Call::CallType::Extern);
        Expr result = Variable::make(Int(32), status);
        return Block::make(LetStmt::make(status, call, AssertStmt::make(result == 0, result)),
                           program);
    }

    static bool has_specializations(const lang::Function &f) {
        for (int i = 0; i < f.stages(); i++) {
            if (!f.stage(i).specializations.empty()) return true;
        }
        return false;
    }

    /// The rest of offload() for a contraction.
    Stmt offload_contraction(const For *op, const Store *store, const Expr &value,
                             const Expr &index) {
        const lang::Function &f = env_.func(func_);
        // value = c[index] + i32(a[...]) * i32(b[...]), either way round.
        const auto *add = value.as<Add>();
        const Load *self = nullptr;
        Expr product;
        if (add) {
            for (const auto &[x, y] : {std::pair{add->a, add->b}, std::pair{add->b, add->a}}) {
                const auto *l = x.as<Load>();
                if (!self && l && l->name == store->name && equal(l->index, index)) {
                    self = l;
                    product = y;
                }
            }
        }
        user_assert(self && product.as<Mul>())
            << where_ << ": the update is not a contraction the NPU's GEMM core runs; it must be "
            << "f(...) = f(...) + i32(a(...)) * i32(b(...)), but it is " << short_text(value)
            << ".";
        const auto *mul = product.as<Mul>();
        const Load *la = operand(mul->a, product), *lb = operand(mul->b, product);
        user_assert(la->name != store->name && lb->name != store->name)
            << where_ << ": the update reads \"" << store->name
            << "\" as an operand of the product; the NPU's operands must be other buffers.";
        Access c = analyse(store->name, index);
        Access a = analyse(la->name, la->index), b = analyse(lb->name, lb->index);
        // Roles: the loops the result lacks are the contraction (k), those b lacks the rows
        // (m), those a lacks the output channels (n), and those of all three the channels of a
        // depthwise contraction (d, mapped onto diagonal weight blocks); up to kSlots of each
        // (kDiagonalSlots of d), flattened.
        std::vector<int> roles[4];  // m, n, k, d
        for (size_t i = 0; i < loops_.size(); i++) {
            const bool in_c = c.uses(i), in_a = a.uses(i), in_b = b.uses(i);
            const int role = !in_c && in_a && in_b   ? 2
                             : in_c && in_a && !in_b ? 0
                             : in_c && !in_a && in_b ? 1
                             : in_c && in_a && in_b  ? 3
                                                     : -1;
            user_assert(role >= 0)
                << where_ << ": the loop \"" << loops_[i].name << "\" is " << (in_c ? "" : "not ")
                << "in the result's index, " << (in_a ? "" : "not ") << "in \"" << a.buffer
                << "\"'s and " << (in_b ? "" : "not ") << "in \"" << b.buffer
                << "\"'s; the GEMM core needs loops in the result and one operand (rows), in the "
                   "result and the other operand (output channels), in both operands only (the "
                   "contraction), or in all three (a depthwise convolution's channels).";
            roles[role].push_back(static_cast<int>(i));
        }
        static const char *const role_names[] = {"rows", "output channels", "contraction",
                                                 "depthwise channels"};
        const bool depthwise = !roles[3].empty();
        for (int r = 0; r < 4; r++) {
            const size_t most = r == 3 ? kDiagonalSlots : kSlots;
            const bool may_be_empty = r == 3 || (r == 1 && depthwise);
            user_assert((may_be_empty || !roles[r].empty()) && roles[r].size() <= most)
                << where_ << ": " << roles[r].size() << " loops of " << role_names[r]
                << "; the GEMM core needs 1 to " << kSlots
                << " loops of each of rows (in the result and \"" << a.buffer
                << "\"), output channels (in the result and \"" << b.buffer
                << "\") and contraction (in both operands only), and up to " << kDiagonalSlots
                << " of depthwise channels (in all three) in place of output channels.";
        }
        user_assert(!depthwise || roles[1].empty())
            << where_ << ": a depthwise contraction (loops in the result and both operands) with "
            << "other output channels as well (a channel multiplier) does not map; the NPU maps "
               "the channels onto diagonal weight blocks.";
        const schedule::StageSchedule &sched = f.stage(stage_).schedule;
        // C starts from zero when the pure definition is zero, this is the only update, and the
        // NPU runs all of it (no host loop around it revisits C).
        const schedule::Dim *outer = outermost_loop(sched);
        const bool whole = outer && outer->var == var_;
        bool zero_start = stage_ == 1 && f.stages() == 2 && whole;
        for (const Expr &v : f.stage(0).values)
            zero_start = zero_start && is_const_zero(v);
        auto i64 = [](const Expr &e) { return simplify(cast(Int(64), e)); };
        auto i32 = [](const Expr &e) { return simplify(cast(Int(32), e)); };
        std::vector<Expr> args = {StringImm::make(func_),
                                  Variable::make(Handle(), a.buffer),
                                  i64(a.base),
                                  Variable::make(Handle(), b.buffer),
                                  i64(b.base),
                                  Variable::make(Handle(), c.buffer),
                                  i64(c.base)};
        // Per role and slot: the extent and the strides of the buffers the role indexes
        // (m: a, c; n: b, c; k: a, b; d: a, b, c); unused slots have extent 1.
        const std::vector<const Access *> indexed[4] = {{&a, &c}, {&b, &c}, {&a, &b}, {&a, &b, &c}};
        for (int r = 0; r < 4; r++) {
            for (size_t slot = 0; slot < (r == 3 ? kDiagonalSlots : kSlots); slot++) {
                const bool used = slot < roles[r].size();
                const int l = used ? roles[r][slot] : 0;
                args.push_back(used ? i32(loops_[l].extent) : Expr(int32_t(1)));
                for (const Access *x : indexed[r])
                    args.push_back(used ? i64(x->strides[l]) : Expr(int64_t(0)));
            }
        }
        args.push_back(Expr(int32_t(zero_start ? 0 : 1)));
        Stmt call = runtime_call(op, "dsl_runtime_npu_gemm", args, sched);
        // Deferred when the next stage, all of it on the NPU, may be its requantization and
        // all of this stage is on the NPU (then nothing between the two touches f).
        const schedule::StageSchedule *next =
            stage_ + 1 < f.stages() ? &f.stage(stage_ + 1).schedule : nullptr;
        if (next && all_on_npu(*next) && whole && !has_specializations(f)) {
            for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
                call = substitute(it->first, it->second, call);
            pending[func_] = {call, stage_};
            return Evaluate::make(0);
        }
        return call;
    }

    const Environment &env_;
    std::vector<std::pair<std::string, Expr>> scope_;
    std::vector<Loop> loops_;
    std::string func_, var_, where_;
    int stage_ = 0;
};

}  // namespace

bool converts_to_bytes(const lang::Function &g, const std::string &c) {
    if (g.stages() != 1 || g.outputs() != 1) return false;
    const auto *conversion = g.stage(0).values[0].as<Cast>();
    const auto *call = conversion ? conversion->value.as<Call>() : nullptr;
    if (!call || (conversion->type != Int(8) && conversion->type != UInt(8)) || call->name != c ||
        call->call_type != Call::CallType::Func || call->args.size() != g.args().size())
        return false;
    for (size_t i = 0; i < call->args.size(); i++) {
        const auto *v = call->args[i].as<Variable>();
        if (!v || v->name != g.args()[i]) return false;
    }
    return true;
}

Stmt offload_npu_loops(const Environment &env, const Stmt &s, Module &module) {
    Offloader offloader(env);
    Stmt result = offloader.mutate(s);
    internal_assert(offloader.pending.empty())
        << "an NPU contraction waited for a requantization that never came";
    internal_assert(offloader.stores_pending_.empty())
        << "an NPU program waited for the loops of a conversion to bytes that never came";
    module.uses_npu |= offloader.offloaded;
    return result;
}

}  // namespace dsl::lowering
