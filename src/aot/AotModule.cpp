#include "aot/AotModule.h"

#include <fstream>

#include <cctype>
#include <map>
#include <set>

#include "ir/Error.h"
#include "ir/Parameter.h"
#include "lang/Realize.h"
#include "lowering/Lower.h"

namespace dsl::aot {

using ir::LoweredArgument;

bool is_c_identifier(const std::string &s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    for (char c : s) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    }
    return true;
}

void write_file(const std::string &filename, const std::string &bytes, const char *what) {
    std::ofstream out(filename, std::ios::binary);
    user_assert(out.good()) << what << ": cannot write \"" << filename << "\".";
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    user_assert(out.good()) << what << ": writing \"" << filename << "\" failed.";
}

ir::Module lower_for_aot(const std::vector<lang::Function> &output_funcs,
                         const std::vector<Argument> &args, const std::string &fn_name,
                         const char *what, const Target &target) {
    const std::string names = lang::names_of(output_funcs);
    user_assert(is_c_identifier(fn_name))
        << what << " of Func \"" << names << "\": \"" << fn_name
        << "\" is not a C identifier; name the function with letters, digits and '_'.";
    lowering::LoweredPipeline lowered =
        lowering::lower(output_funcs, fn_name, lowering::StrideVersions::Both,
                        lowering::instrumentation_for(target));
    ir::LoweredFunc &lf = lowered.module.functions[0];

    std::set<std::string> listed;
    for (const Argument &a : args) {
        user_assert(listed.insert(a.name()).second)
            << what << " of Func \"" << names << "\": the argument \"" << a.name()
            << "\" is listed twice.";
        user_assert(is_c_identifier(a.name()))
            << what << " of Func \"" << names << "\": the argument name \"" << a.name()
            << "\" is not a C identifier; give the Param or ImageParam a name made of letters, "
               "digits and '_'.";
    }
    std::map<std::string, LoweredArgument> used;
    std::vector<LoweredArgument> outputs;
    for (const LoweredArgument &a : lf.args) {
        if (a.kind == LoweredArgument::Kind::OutputBuffer) {
            outputs.push_back(a);
        } else {
            used[a.name] = a;
        }
    }
    for (const lowering::PipelineInput &in : lowered.inputs) {
        user_assert(in.param.defined())
            << what << " of Func \"" << names << "\": the pipeline reads the Buffer \"" << in.name
            << "\" directly, which a compiled library cannot carry. Read it through an "
            << "ImageParam and list that in the arguments.";
        user_assert(listed.count(in.name))
            << what << " of Func \"" << names << "\": the pipeline reads the "
            << (in.is_buffer ? "ImageParam" : "Param") << " \"" << in.name
            << "\", which is not in the argument list; add it.";
    }
    std::vector<LoweredArgument> ordered;
    for (const Argument &a : args) {
        auto it = used.find(a.name());
        if (it != used.end()) {
            ordered.push_back(it->second);
            continue;
        }
        // Listed but not read: still an argument of the function (its type is checked).
        LoweredArgument unused;
        unused.name = a.name();
        unused.kind =
            a.is_buffer() ? LoweredArgument::Kind::InputBuffer : LoweredArgument::Kind::Scalar;
        unused.type = a.type();
        unused.dimensions = a.dimensions();
        ordered.push_back(unused);
    }
    for (const LoweredArgument &o : outputs) {
        user_assert(!listed.count(o.name))
            << what << " of Func \"" << names << "\": an argument is named \"" << o.name
            << "\" like the output buffer; rename it.";
        ordered.push_back(o);
    }
    lf.args = ordered;
    return lowered.module;
}

}  // namespace dsl::aot
