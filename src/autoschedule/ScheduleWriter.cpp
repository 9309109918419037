#include "autoschedule/ScheduleWriter.h"

#include <cctype>
#include <sstream>

#include "ir/Error.h"
#include "lang/Function.h"

namespace dsl::autoschedule {

std::string ScheduleWriter::ident(const std::string &name, bool is_func) {
    auto &table = is_func ? func_idents_ : loop_idents_;
    auto it = table.find(name);
    if (it != table.end()) return it->second;
    std::string id;
    for (char ch : name)
        id += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
    if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "v_" + id;
    // Names a C++ keyword or our own identifiers could take.
    static const std::set<std::string> reserved = {
        "pipeline", "int",     "for",    "if",     "do",   "new",   "delete",
        "auto",     "float",   "double", "char",   "long", "short", "signed",
        "unsigned", "default", "case",   "switch", "this"};
    std::string base = id;
    for (int n = 2; used_idents_.count(id) || reserved.count(id); n++)
        id = base + "_" + std::to_string(n);
    used_idents_.insert(id);
    table[name] = id;
    return id;
}

void ScheduleWriter::add_func(const Func &f) {
    if (funcs_.count(f.name())) return;
    funcs_.emplace(f.name(), f);
    func_order_.push_back(f.name());
    ident(f.name(), true);
}

Func &ScheduleWriter::func(const std::string &name) {
    auto it = funcs_.find(name);
    internal_assert(it != funcs_.end()) << "autoschedule: unknown Func " << name;
    return it->second;
}

Stage ScheduleWriter::stage(const std::string &f, int s) {
    return Stage(func(f).contents(), s);
}

VarOrRVar ScheduleWriter::loop(const std::string &name) const {
    if (rvars_.count(name)) return RVar(name);
    return Var(name);
}

void ScheduleWriter::record(const std::string &f, int s, const std::string &directive) {
    named_.insert(f);
    std::string head =
        func_idents_.at(f) + (s == 0 ? "" : ".update(" + std::to_string(s - 1) + ")");
    if (lines_.empty() || lines_.back().first != head) lines_.push_back({head, ""});
    lines_.back().second += "." + directive;
}

void ScheduleWriter::compute_root(const std::string &f) {
    func(f).compute_root();
    record(f, 0, "compute_root()");
}

void ScheduleWriter::compute_inline(const std::string &f) {
    func(f).compute_inline();
    record(f, 0, "compute_inline()");
}

void ScheduleWriter::compute_at(const std::string &f, const std::string &consumer,
                                const std::string &l) {
    func(f).compute_at(func(consumer), loop(l));
    named_.insert(consumer);
    record(f, 0, "compute_at(" + func_idents_.at(consumer) + ", " + ident(l, false) + ")");
}

void ScheduleWriter::bound_extent(const std::string &f, const std::string &var, int extent) {
    func(f).bound_extent(Var(var), extent);
    record(f, 0, "bound_extent(" + ident(var, false) + ", " + std::to_string(extent) + ")");
}

void ScheduleWriter::split(const std::string &f, int s, const std::string &var,
                           const std::string &outer, const std::string &inner, int factor,
                           TailStrategy tail) {
    if (rvars_.count(var)) {
        rvars_.insert(outer);
        rvars_.insert(inner);
    }
    stage(f, s).split(loop(var), loop(outer), loop(inner), factor, tail);
    std::string d = "split(" + ident(var, false) + ", " + ident(outer, false) + ", " +
                    ident(inner, false) + ", " + std::to_string(factor);
    if (tail != TailStrategy::Auto) d += std::string(", ") + tail_strategy_code(tail);
    record(f, s, d + ")");
}

void ScheduleWriter::fuse(const std::string &f, int s, const std::string &inner,
                          const std::string &outer, const std::string &fused) {
    if (rvars_.count(inner) && rvars_.count(outer)) rvars_.insert(fused);
    stage(f, s).fuse(loop(inner), loop(outer), loop(fused));
    record(f, s,
           "fuse(" + ident(inner, false) + ", " + ident(outer, false) + ", " + ident(fused, false) +
               ")");
}

void ScheduleWriter::reorder(const std::string &f, int s,
                             const std::vector<std::string> &innermost_first) {
    std::vector<VarOrRVar> loops;
    std::string d = "reorder(";
    for (size_t i = 0; i < innermost_first.size(); i++) {
        loops.push_back(loop(innermost_first[i]));
        d += (i ? ", " : "") + ident(innermost_first[i], false);
    }
    stage(f, s).reorder(loops);
    record(f, s, d + ")");
}

void ScheduleWriter::vectorize(const std::string &f, int s, const std::string &var) {
    stage(f, s).vectorize(loop(var));
    record(f, s, "vectorize(" + ident(var, false) + ")");
}

void ScheduleWriter::vectorize(const std::string &f, int s, const std::string &var, int factor,
                               TailStrategy tail) {
    stage(f, s).vectorize(loop(var), factor, tail);
    std::string d = "vectorize(" + ident(var, false) + ", " + std::to_string(factor);
    if (tail != TailStrategy::Auto) d += std::string(", ") + tail_strategy_code(tail);
    record(f, s, d + ")");
}

void ScheduleWriter::unroll(const std::string &f, int s, const std::string &var) {
    stage(f, s).unroll(loop(var));
    record(f, s, "unroll(" + ident(var, false) + ")");
}

void ScheduleWriter::parallel(const std::string &f, int s, const std::string &var) {
    stage(f, s).parallel(loop(var));
    record(f, s, "parallel(" + ident(var, false) + ")");
}

void ScheduleWriter::gpu_loops(const std::string &f, int s, const std::vector<std::string> &l,
                               bool blocks) {
    internal_assert(!l.empty() && l.size() <= 3) << "autoschedule: 1 to 3 GPU loops";
    Stage st = stage(f, s);
    std::string d = blocks ? "gpu_blocks(" : "gpu_threads(";
    for (size_t i = 0; i < l.size(); i++)
        d += (i ? ", " : "") + ident(l[i], false);
    if (l.size() == 1) {
        blocks ? st.gpu_blocks(loop(l[0])) : st.gpu_threads(loop(l[0]));
    } else if (l.size() == 2) {
        blocks ? st.gpu_blocks(loop(l[0]), loop(l[1])) : st.gpu_threads(loop(l[0]), loop(l[1]));
    } else {
        blocks ? st.gpu_blocks(loop(l[0]), loop(l[1]), loop(l[2]))
               : st.gpu_threads(loop(l[0]), loop(l[1]), loop(l[2]));
    }
    record(f, s, d + ")");
}

void ScheduleWriter::gpu_blocks(const std::string &f, int s, const std::vector<std::string> &l) {
    gpu_loops(f, s, l, true);
}

void ScheduleWriter::gpu_threads(const std::string &f, int s, const std::vector<std::string> &l) {
    gpu_loops(f, s, l, false);
}

Func ScheduleWriter::rfactor(const std::string &f, int s, const std::string &rvar,
                             const std::string &var) {
    Func intm = stage(f, s).rfactor(RVar(rvar), Var(var));
    std::string head = func_idents_.at(f) + ".update(" + std::to_string(s - 1) + ")";
    named_.insert(f);
    add_func(intm);
    made_by_[intm.name()] =
        head + ".rfactor(" + ident(rvar, false) + ", " + ident(var, false) + ")";
    lines_.push_back({"Func " + func_idents_.at(intm.name()) + " = " + made_by_[intm.name()], ""});
    return intm;
}

std::string ScheduleWriter::source() const {
    std::ostringstream out;
    out << "// " << header_ << "\n";
    out << "{\n";
    out << "    using namespace dsl;\n";
    for (const std::string &f : func_order_) {
        // Only the Funcs the directives name (the others keep the default schedule).
        if (made_by_.count(f) || !named_.count(f)) continue;
        out << "    Func " << func_idents_.at(f) << " = pipeline.get_func(\"" << f << "\");\n";
    }
    std::string vars, rvars;
    for (const auto &[name, id] : loop_idents_) {
        std::string decl = id + "(\"" + name + "\")";
        std::string &list = rvars_.count(name) ? rvars : vars;
        list += (list.empty() ? "" : ", ") + decl;
    }
    if (!vars.empty()) out << "    Var " << vars << ";\n";
    if (!rvars.empty()) out << "    RVar " << rvars << ";\n";
    for (const auto &[head, directives] : lines_)
        out << "    " << head << directives << ";\n";
    out << "}\n";
    return out.str();
}

}  // namespace dsl::autoschedule
