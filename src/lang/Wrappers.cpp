// Func::in(), Func::clone_in() and ImageParam::in(): Funcs that stand in for another Func, or
// for an input buffer, in the calls of chosen consumers. They are recorded on the wrapped Func
// (on the parameter, weakly, for an ImageParam); lowering (lowering/Wrappers.cpp) redirects the
// calls.
#include "dsl/Func.h"
#include "dsl/Param.h"
#include "ir/Error.h"
#include "ir/IRVisitor.h"
#include "lang/Function.h"

namespace dsl {

using namespace ir;
using lang::Function;
using lang::FunctionContents;
using ContentsMap = std::map<std::string, std::shared_ptr<FunctionContents>>;

namespace {

/// The Func already recorded for one of `consumers` in `map` (the same for all of them, or a
/// CompileError), or null. `owner` names what is wrapped ("Func \"f\"", "ImageParam \"in\"")
/// and `self` is its Func, if it is one (which cannot stand in for its own calls).
std::shared_ptr<FunctionContents> recorded(const std::string &owner, const FunctionContents *self,
                                           const ContentsMap &map,
                                           const std::vector<Func> &consumers, const char *what) {
    user_assert(!consumers.empty())
        << owner << "." << what << "(): the list of consumers is empty.";
    std::shared_ptr<FunctionContents> found;
    for (const Func &c : consumers) {
        user_assert(c.contents().get() != self) << owner << "." << what << "(" << c.name()
                                                << "): a Func cannot stand in for its own calls.";
        auto it = map.find(c.name());
        if (it == map.end()) continue;
        user_assert(!found || found == it->second)
            << owner << "." << what << "(...): the consumers listed already have different " << what
            << "() Funcs (\"" << found->name << "\", \"" << it->second->name
            << "\"); list each consumer once.";
        found = it->second;
    }
    return found;
}

std::string func_owner(const Func &f) {
    return "Func \"" + f.name() + "\"";
}

std::string joined_names(const std::vector<Func> &consumers) {
    std::string s;
    for (const Func &c : consumers)
        s += (s.empty() ? "" : "_") + c.name();
    return s;
}

/// Makes the calls to `from` in `f` calls to `to`, weakly: `to` is kept alive by `from` (its
/// wrapper or clone), so a strong call back would be a reference cycle.
void redirect_weakly(FunctionContents &f, const FunctionContents *from,
                     const std::shared_ptr<FunctionContents> &to) {
    lang::redirect_calls(f, [&](const FunctionContents &callee) {
        return &callee == from ? FunctionPtr(to).weakened() : FunctionPtr();
    });
}

/// A Func `wrapper(args) = f(args)` (every value of a Tuple) over f's pure Vars.
std::shared_ptr<FunctionContents> make_wrapper(const std::shared_ptr<FunctionContents> &f,
                                               const std::string &name) {
    Function w = Function::make(name);
    std::vector<Expr> args;
    for (const std::string &a : f->args)
        args.push_back(Variable::make(Int(32), a));
    std::vector<Expr> values;
    for (size_t i = 0; i < f->output_types.size(); i++) {
        values.push_back(Call::make(f->output_types[i], f->name, args, Call::CallType::Func,
                                    static_cast<int>(i), FunctionPtr(f)));
    }
    w.define(f->args, values);
    // The wrapped Func keeps the wrapper alive; the wrapper's calls back to it are weak.
    redirect_weakly(w.contents(), f.get(), f);
    return w.shared();
}

}  // namespace

Func Func::in(const std::vector<Func> &consumers) {
    user_assert(defined()) << "Func \"" << name()
                           << "\".in(...): define the Func before wrapping it.";
    std::shared_ptr<FunctionContents> wrapper =
        recorded(func_owner(*this), contents_.get(), contents_->wrappers, consumers, "in");
    if (!wrapper) wrapper = make_wrapper(contents_, name() + "_in_" + joined_names(consumers));
    for (const Func &c : consumers)
        contents_->wrappers[c.name()] = wrapper;
    Function(contents_).touch();
    return Func(wrapper);
}

Func Func::in(const Func &consumer) {
    return in(std::vector<Func>{consumer});
}

Func Func::in() {
    user_assert(defined()) << "Func \"" << name() << "\".in(): define the Func before wrapping it.";
    std::shared_ptr<FunctionContents> &wrapper = contents_->wrappers[""];
    if (!wrapper) {
        wrapper = make_wrapper(contents_, name() + "_global_wrapper");
        Function(contents_).touch();
    }
    return Func(wrapper);
}

Func Func::clone_in(const std::vector<Func> &consumers) {
    user_assert(defined()) << "Func \"" << name()
                           << "\".clone_in(...): define the Func before cloning it.";
    std::shared_ptr<FunctionContents> clone =
        recorded(func_owner(*this), contents_.get(), contents_->clones, consumers, "clone_in");
    if (!clone) {
        clone = std::make_shared<FunctionContents>(*contents_);
        clone->name = name() + "_clone_in_" + joined_names(consumers);
        clone->wrappers.clear();
        clone->clones.clear();
        clone->output_constraints.clear();
        // An update that reads this Func reads the copy instead.
        redirect_weakly(*clone, contents_.get(), clone);
    }
    for (const Func &c : consumers)
        contents_->clones[c.name()] = clone;
    Function(contents_).touch();
    return Func(clone);
}

Func Func::clone_in(const Func &consumer) {
    return clone_in(std::vector<Func>{consumer});
}

namespace {

/// `wrapper(_0, _1, ...) = input(_0, _1, ...)`.
std::shared_ptr<FunctionContents> make_image_wrapper(const ImageParam &input,
                                                     const std::string &name) {
    Function w = Function::make(name);
    std::vector<std::string> names;
    std::vector<Expr> args;
    for (int d = 0; d < input.dimensions(); d++) {
        names.push_back(Var::implicit(d).name());
        args.push_back(Var::implicit(d));
    }
    w.define(names, {input(args)});
    return w.shared();
}

}  // namespace

namespace {

/// ImageParam::in()'s Funcs recorded on `param`, by consumer ("" for every consumer).
ContentsMap image_wrappers(const ParameterContents &param) {
    ContentsMap map;
    for (const auto &[consumer, w] : param.wrappers) {
        if (std::shared_ptr<FunctionContents> live = w.lock()) map[consumer] = live;
    }
    return map;
}

}  // namespace

Func ImageParam::in(const std::vector<Func> &consumers) {
    std::shared_ptr<FunctionContents> wrapper = recorded(
        "ImageParam \"" + name() + "\"", nullptr, image_wrappers(*contents_), consumers, "in");
    if (!wrapper) {
        wrapper = make_image_wrapper(*this, name() + "_in_" + joined_names(consumers));
        wrappers_->push_back(wrapper);
    }
    for (const Func &c : consumers)
        contents_->wrappers[c.name()] = FunctionPtr(wrapper).weakened();
    lang::bump_pipeline_epoch();
    return Func(wrapper);
}

Func ImageParam::in(const Func &consumer) {
    return in(std::vector<Func>{consumer});
}

Func ImageParam::in() {
    ContentsMap recorded_wrappers = image_wrappers(*contents_);
    auto it = recorded_wrappers.find("");
    if (it != recorded_wrappers.end()) return Func(it->second);
    std::shared_ptr<FunctionContents> wrapper =
        make_image_wrapper(*this, name() + "_global_wrapper");
    wrappers_->push_back(wrapper);
    contents_->wrappers[""] = FunctionPtr(wrapper).weakened();
    lang::bump_pipeline_epoch();
    return Func(wrapper);
}

}  // namespace dsl
