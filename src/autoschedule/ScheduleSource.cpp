// Pipeline::apply_schedule_source: reads back the C++ schedule source the autoscheduler writes
// (and the tuner, and a person editing either), and applies it to the pipeline's Funcs through
// the same directives. It reads the subset of C++ schedules are written in: declarations of
// Funcs (`Func f = pipeline.get_func("f");`, or the intermediate of an rfactor), of Vars and
// RVars (`Var x("x"), xo("xo");`), and chains of directives on a Func or one of its updates,
// each statement ending in `;`. Comments, braces and `using namespace` lines are skipped.
#include <cctype>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "autoschedule/Model.h"
#include "dsl/Pipeline.h"
#include "ir/Error.h"

namespace dsl {

namespace {

struct Token {
    enum Kind { Ident, Number, String, Punct, End } kind = End;
    std::string text;
    int line = 0;
};

std::vector<Token> tokenize(const std::string &s) {
    std::vector<Token> out;
    int line = 1;
    for (size_t i = 0; i < s.size();) {
        char c = s[i];
        if (c == '\n') {
            line++;
            i++;
        } else if (std::isspace(static_cast<unsigned char>(c))) {
            i++;
        } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
            while (i < s.size() && s[i] != '\n')
                i++;
        } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
            size_t end = s.find("*/", i + 2);
            for (size_t k = i; k < std::min(end, s.size()); k++)
                line += s[k] == '\n';
            i = end == std::string::npos ? s.size() : end + 2;
        } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            size_t j = i;
            while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_'))
                j++;
            out.push_back({Token::Ident, s.substr(i, j - i), line});
            i = j;
        } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                   (c == '-' && i + 1 < s.size() &&
                    std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
            size_t j = i + 1;
            while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])))
                j++;
            out.push_back({Token::Number, s.substr(i, j - i), line});
            i = j;
        } else if (c == '"') {
            size_t j = i + 1;
            std::string text;
            while (j < s.size() && s[j] != '"') {
                if (s[j] == '\\' && j + 1 < s.size()) j++;
                text += s[j++];
            }
            out.push_back({Token::String, text, line});
            i = j + 1;
        } else if (c == ':' && i + 1 < s.size() && s[i + 1] == ':') {
            out.push_back({Token::Punct, "::", line});
            i += 2;
        } else {
            out.push_back({Token::Punct, std::string(1, c), line});
            i++;
        }
    }
    out.push_back({Token::End, "", line});
    return out;
}

class Reader {
  public:
    Reader(Pipeline &p, const std::string &source) : p_(p), tokens_(tokenize(source)) {}

    void run() {
        while (peek().kind != Token::End) {
            const Token &t = peek();
            if (t.kind == Token::Punct && (t.text == "{" || t.text == "}" || t.text == ";")) {
                next();
            } else if (t.kind == Token::Ident && t.text == "using") {
                while (peek().kind != Token::End && peek().text != ";")
                    next();
            } else if (t.kind == Token::Ident && t.text == "Func") {
                next();
                do {
                    func_declaration();
                } while (accept(","));
                expect(";");
            } else if (t.kind == Token::Ident && (t.text == "Var" || t.text == "RVar")) {
                bool rvar = next().text == "RVar";
                loop_declarations(rvar);
            } else {
                chain();
            }
        }
    }

  private:
    [[noreturn]] void fail(const Token &at, const std::string &what) {
        throw CompileError("Error: apply_schedule_source: line " + std::to_string(at.line) +
                           ", at \"" + at.text + "\": " + what);
    }
    const Token &peek() const { return tokens_[pos_]; }
    const Token &next() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }
    void expect(const std::string &punct) {
        const Token &t = next();
        if (t.kind != Token::Punct || t.text != punct) fail(t, "expected \"" + punct + "\"");
    }
    std::string ident() {
        const Token &t = next();
        if (t.kind != Token::Ident) fail(t, "expected a name");
        return t.text;
    }
    int number() {
        const Token &t = next();
        if (t.kind != Token::Number) fail(t, "expected a whole number");
        return std::stoi(t.text);
    }
    bool accept(const std::string &punct) {
        if (peek().kind == Token::Punct && peek().text == punct) {
            next();
            return true;
        }
        return false;
    }

    Func &func(const Token &at, const std::string &id) {
        auto it = funcs_.find(id);
        if (it == funcs_.end()) fail(at, "no Func \"" + id + "\" is declared above");
        return it->second;
    }
    VarOrRVar loop(const Token &at, const std::string &id) {
        auto it = loops_.find(id);
        if (it == loops_.end()) fail(at, "no Var or RVar \"" + id + "\" is declared above");
        if (it->second.second) return RVar(it->second.first);
        return Var(it->second.first);
    }
    VarOrRVar loop_arg() {
        const Token &t = peek();
        return loop(t, ident());
    }

    void func_declaration() {
        std::string id = ident();
        expect("=");
        const Token &t = peek();
        std::string head = ident();
        if (head == "pipeline") {
            expect(".");
            if (ident() != "get_func") fail(t, "a Func comes from pipeline.get_func(\"name\")");
            expect("(");
            const Token &name = next();
            if (name.kind != Token::String) fail(name, "expected the Func's name in quotes");
            expect(")");
            funcs_[id] = p_.get_func(name.text);
        } else {
            // `Func g = f.update(N).rfactor(r, v);`
            Func &f = func(t, head);
            expect(".");
            if (ident() != "update") fail(t, "expected f.update(N).rfactor(...)");
            expect("(");
            int n = number();
            expect(")");
            expect(".");
            if (ident() != "rfactor") fail(t, "expected f.update(N).rfactor(...)");
            expect("(");
            const Token &rt = peek();
            std::string r = ident();
            auto it = loops_.find(r);
            if (it == loops_.end() || !it->second.second) fail(rt, "rfactor takes an RVar first");
            expect(",");
            const Token &vt = peek();
            std::string v = ident();
            auto vit = loops_.find(v);
            if (vit == loops_.end() || vit->second.second) fail(vt, "rfactor takes a Var second");
            expect(")");
            funcs_[id] = f.update(n).rfactor(RVar(it->second.first), Var(vit->second.first));
        }
    }

    void loop_declarations(bool rvar) {
        do {
            std::string id = ident();
            expect("(");
            const Token &name = next();
            if (name.kind != Token::String) fail(name, "expected the loop's name in quotes");
            expect(")");
            loops_[id] = {name.text, rvar};
        } while (accept(","));
        expect(";");
    }

    TailStrategy tail() {
        const Token &t = peek();
        if (ident() != "TailStrategy") fail(t, "expected TailStrategy::...");
        expect("::");
        const Token &n = peek();
        std::string s = ident();
        if (s == "Auto") return TailStrategy::Auto;
        if (s == "RoundUp") return TailStrategy::RoundUp;
        if (s == "GuardWithIf") return TailStrategy::GuardWithIf;
        if (s == "ShiftInwards") return TailStrategy::ShiftInwards;
        if (s == "PartialTile") return TailStrategy::PartialTile;
        if (s == "Predicate" || s == "PredicateLoads" || s == "PredicateStores")
            return TailStrategy::GuardWithIf;
        fail(n, "no TailStrategy is named " + s);
    }
    MemoryType memory_type() {
        const Token &t = peek();
        if (ident() != "MemoryType") fail(t, "expected MemoryType::...");
        expect("::");
        const Token &n = peek();
        std::string s = ident();
        if (s == "Auto") return MemoryType::Auto;
        if (s == "Heap") return MemoryType::Heap;
        if (s == "Stack") return MemoryType::Stack;
        if (s == "Register") return MemoryType::Register;
        fail(n, "apply_schedule_source reads MemoryType Auto, Heap, Stack and Register, not " + s);
    }

    /// The arguments of tile or gpu_tile: loops, sizes and an optional TailStrategy, in any
    /// order; returns the TailStrategy (Auto where none is given).
    TailStrategy tile_args(std::vector<VarOrRVar> &loops, std::vector<int> &sizes) {
        TailStrategy t = TailStrategy::Auto;
        do {
            if (peek().kind == Token::Number) {
                sizes.push_back(number());
            } else if (peek().text == "TailStrategy") {
                t = tail();
            } else {
                loops.push_back(loop_arg());
            }
        } while (accept(","));
        return t;
    }

    /// `f[.update(N)].directive(...)...;`
    void chain() {
        const Token &start = peek();
        Func &f = func(start, ident());
        Stage stage(f.contents(), 0);
        bool is_func = true;
        while (accept(".")) {
            const Token &dt = peek();
            std::string d = ident();
            expect("(");
            if (d == "update") {
                int n = peek().kind == Token::Number ? number() : 0;
                expect(")");
                stage = f.update(n);
                is_func = false;
                continue;
            }
            auto func_only = [&] {
                if (!is_func) fail(dt, d + "() applies to a Func, not to an update");
            };
            if (d == "split") {
                VarOrRVar v = loop_arg();
                expect(",");
                VarOrRVar o = loop_arg();
                expect(",");
                VarOrRVar i = loop_arg();
                expect(",");
                int factor = number();
                TailStrategy t = TailStrategy::Auto;
                if (accept(",")) t = tail();
                stage.split(v, o, i, factor, t);
            } else if (d == "fuse") {
                VarOrRVar i = loop_arg();
                expect(",");
                VarOrRVar o = loop_arg();
                expect(",");
                VarOrRVar fused = loop_arg();
                stage.fuse(i, o, fused);
            } else if (d == "reorder") {
                std::vector<VarOrRVar> loops;
                do {
                    loops.push_back(loop_arg());
                } while (accept(","));
                stage.reorder(loops);
            } else if (d == "tile") {
                std::vector<VarOrRVar> v;
                std::vector<int> sizes;
                TailStrategy t = tile_args(v, sizes);
                if (v.size() == 6 && sizes.size() == 2) {
                    stage.tile(v[0], v[1], v[2], v[3], v[4], v[5], sizes[0], sizes[1], t);
                } else if (v.size() == 4 && sizes.size() == 2) {
                    stage.tile(v[0], v[1], v[2], v[3], sizes[0], sizes[1], t);
                } else {
                    fail(dt, "tile takes (x, y, xo, yo, xi, yi, w, h) or (x, y, xi, yi, w, h)");
                }
            } else if (d == "vectorize" || d == "unroll") {
                VarOrRVar v = loop_arg();
                if (accept(",")) {
                    int factor = number();
                    TailStrategy t = TailStrategy::Auto;
                    if (accept(",")) t = tail();
                    d == "vectorize" ? stage.vectorize(v, factor, t) : stage.unroll(v, factor, t);
                } else {
                    d == "vectorize" ? stage.vectorize(v) : stage.unroll(v);
                }
            } else if (d == "parallel") {
                VarOrRVar v = loop_arg();
                if (accept(",")) {
                    int task = number();
                    stage.parallel(v, task);
                } else {
                    stage.parallel(v);
                }
            } else if (d == "gpu_blocks" || d == "gpu_threads") {
                std::vector<VarOrRVar> v;
                do {
                    v.push_back(loop_arg());
                } while (accept(","));
                const bool b = d == "gpu_blocks";
                if (v.size() == 1) {
                    b ? stage.gpu_blocks(v[0]) : stage.gpu_threads(v[0]);
                } else if (v.size() == 2) {
                    b ? stage.gpu_blocks(v[0], v[1]) : stage.gpu_threads(v[0], v[1]);
                } else if (v.size() == 3) {
                    b ? stage.gpu_blocks(v[0], v[1], v[2]) : stage.gpu_threads(v[0], v[1], v[2]);
                } else {
                    fail(dt, d + " takes one to three loops");
                }
            } else if (d == "gpu_tile") {
                std::vector<VarOrRVar> v;
                std::vector<int> sizes;
                TailStrategy t = tile_args(v, sizes);
                if (v.size() == 3 && sizes.size() == 1) {
                    stage.gpu_tile(v[0], v[1], v[2], sizes[0], t);
                } else if (v.size() == 6 && sizes.size() == 2) {
                    stage.gpu_tile(v[0], v[1], v[2], v[3], v[4], v[5], sizes[0], sizes[1], t);
                } else if (v.size() == 9 && sizes.size() == 3) {
                    stage.gpu_tile(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], sizes[0],
                                   sizes[1], sizes[2], t);
                } else {
                    fail(dt,
                         "gpu_tile takes (x, bx, tx, size), (x, y, bx, by, tx, ty, w, h) or "
                         "the 3-D form (x, y, z, bx, by, bz, tx, ty, tz, w, h, d)");
                }
            } else if (d == "serial") {
                stage.serial(loop_arg());
            } else if (d == "atomic") {
                bool override_test = false;
                if (peek().kind == Token::Ident) {
                    const Token &bt = peek();
                    std::string b = ident();
                    if (b != "true" && b != "false") fail(bt, "atomic takes true or false");
                    override_test = b == "true";
                }
                stage.atomic(override_test);
            } else if (d == "allow_race_conditions") {
                stage.allow_race_conditions();
            } else if (d == "compute_root" || d == "store_root" || d == "compute_inline") {
                func_only();
                d == "compute_root" ? f.compute_root()
                : d == "store_root" ? f.store_root()
                                    : f.compute_inline();
            } else if (d == "compute_at" || d == "store_at") {
                func_only();
                const Token &ct = peek();
                Func &consumer = func(ct, ident());
                expect(",");
                VarOrRVar v = loop_arg();
                d == "compute_at" ? f.compute_at(consumer, v) : f.store_at(consumer, v);
            } else if (d == "bound_extent") {
                func_only();
                VarOrRVar v = loop_arg();
                expect(",");
                f.bound_extent(Var(v.name()), number());
            } else if (d == "bound") {
                func_only();
                VarOrRVar v = loop_arg();
                expect(",");
                int min = number();
                expect(",");
                f.bound(Var(v.name()), min, number());
            } else if (d == "store_in") {
                func_only();
                f.store_in(memory_type());
            } else {
                fail(
                    dt,
                    "apply_schedule_source does not know the directive " + d +
                        "; it reads split, fuse, reorder, tile, vectorize, unroll, parallel, "
                        "serial, atomic, allow_race_conditions, gpu_blocks, gpu_threads, gpu_tile, "
                        "compute_root, compute_at, "
                        "compute_inline, store_root, "
                        "store_at, bound, bound_extent and store_in");
            }
            expect(")");
        }
        expect(";");
    }

    Pipeline &p_;
    std::vector<Token> tokens_;
    size_t pos_ = 0;
    std::map<std::string, Func> funcs_;
    std::map<std::string, std::pair<std::string, bool>> loops_;  // id -> (name, is an RVar)
};

}  // namespace

void Pipeline::apply_schedule_source(const std::string &source) {
    user_assert(defined()) << "apply_schedule_source: the Pipeline has no outputs.";
    autoschedule::reset_schedules(outputs_);
    Reader(*this, source).run();
}

}  // namespace dsl
