// main() of a generator program (the dsl_generator_main library): compiles one of the generators
// registered in the program with DSL_REGISTER_GENERATOR, as the command line says.
//
//   <program> -g <generator> -o <output dir> [-e <emit>,...] [-f <function name>]
//             [target=<target>] [<param>=<value> ...]
//   <program> --help | -h      the usage and every generator with its params, inputs, outputs
//   <program> --list           the generators' names, one a line
//
// Exit status 0 on success, 1 on any mistake (the message on stderr names it).
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "dsl/Generator.h"

namespace {

using dsl::GeneratorBase;
using Emit = GeneratorBase::Emit;

const std::vector<Emit> kAllEmits = {Emit::StaticLibrary, Emit::Header,   Emit::Object,
                                     Emit::Stmt,          Emit::Assembly, Emit::LlvmIr,
                                     Emit::PTX,           Emit::OpenCL,   Emit::Schedule};

/// A mistake on the command line: printed, then exit status 1.
struct UsageError {
    std::string message;
};

std::string usage(const std::string &program) {
    std::ostringstream s;
    s << "usage: " << program
      << " -g <generator> -o <output dir> [-e <emit>[,<emit>...]] [-f <function name>]\n"
      << "       [--tune <seconds> [--tune-seed <n>] [--tune-log <file>] [--tune-jobs <n>]]\n"
      << "       [target=<target>] [<param>=<value> ...]\n"
      << "       " << program << " --list | --help\n"
      << "  -g  the registered generator to compile\n"
      << "  -o  the folder for the files (created if missing)\n"
      << "  -e  what to write, to <output dir>/<function name><extension>; default "
         "static_library,h:\n";
    for (Emit e : kAllEmits) {
        s << "        " << GeneratorBase::emit_word(e) << " (" << GeneratorBase::emit_extension(e)
          << (e == Emit::StaticLibrary ? ", with its .h" : "") << ")\n";
    }
    s << "  -f  the name of the compiled function (a C identifier); default: the generator's "
         "name\n"
      << "  --tune <seconds> searches for a faster schedule than the autoscheduler's by measuring\n"
      << "      candidates on random inputs of the estimated sizes (Pipeline::auto_tune) for that\n"
      << "      long, and compiles the fastest (-e schedule writes it as C++ source);\n"
      << "      --tune-seed makes another search, --tune-log appends one JSON line per candidate,\n"
      << "      --tune-jobs sets how many processes compile candidates at once (default: one per\n"
      << "      hardware thread; 1 compiles them in turn)\n"
      << "  -s, -S <name>  the autoscheduler auto_schedule=true uses (Halide's flag; dsl's own\n"
         "      stands in for Halide's names)\n"
      << "  -p <library>  accepted for Halide's build scripts: dsl's autoscheduler is built in,\n"
         "      and no plugin is loaded\n"
      << "  target=<target>  e.g. host, host-avx2, x86-64-linux-avx512; default host\n"
      << "  <param>=<value>  sets a GeneratorParam of the generator (see below)\n";
    return s.str();
}

std::string generator_list() {
    std::string s;
    for (const std::string &name : dsl::registered_generators()) {
        s += (s.empty() ? "" : ", ") + name;
    }
    return s.empty() ? "(none; register one with DSL_REGISTER_GENERATOR)" : s;
}

template <typename Members>
void describe_members(std::ostream &out, const char *title, const Members &members) {
    out << "    " << title << ":\n";
    if (members.empty()) out << "      (none)\n";
    for (const auto *m : members) {
        std::string name = m->member_name();
        if (name.size() < 14) name.resize(14, ' ');
        out << "      " << name << " " << m->describe() << "\n";
    }
}

void print_help(const std::string &program) {
    std::cout << usage(program) << "\nGenerators:\n";
    for (const std::string &name : dsl::registered_generators()) {
        std::cout << "  " << name << "\n";
        try {
            std::unique_ptr<GeneratorBase> g = dsl::create_generator(name);
            describe_members(std::cout, "GeneratorParams", g->params());
            describe_members(std::cout, "Inputs", g->inputs());
            describe_members(std::cout, "Outputs", g->outputs());
        } catch (const dsl::Error &e) {
            std::cout << "    (cannot be created: " << e.what() << ")\n";
        }
    }
    if (dsl::registered_generators().empty()) std::cout << "  " << generator_list() << "\n";
}

std::vector<Emit> parse_emits(const std::string &text) {
    std::vector<Emit> emits;
    std::string valid;
    for (Emit e : kAllEmits)
        valid += (valid.empty() ? "" : ", ") + GeneratorBase::emit_word(e);
    std::stringstream words(text);
    std::string word;
    // Halide's words for the same files.
    const std::map<std::string, std::string> halide_words = {
        {"c_header", "h"}, {"llvm_assembly", "llvm_ir"}, {"stmt_html", "stmt"}};
    while (std::getline(words, word, ',')) {
        if (halide_words.count(word)) word = halide_words.at(word);
        bool found = false;
        for (Emit e : kAllEmits) {
            if (GeneratorBase::emit_word(e) == word) {
                emits.push_back(e);
                found = true;
            }
        }
        if (!found) {
            throw UsageError{"-e: unknown emit \"" + word + "\"; valid emits are: " + valid +
                             " (comma-separated, e.g. -e static_library,h,stmt)."};
        }
    }
    if (emits.empty()) throw UsageError{"-e: no emit given; valid emits are: " + valid + "."};
    return emits;
}

struct CommandLine {
    bool help = false, list = false;
    std::string generator, output_dir, function_name;
    std::vector<Emit> emits = {Emit::StaticLibrary, Emit::Header};
    std::vector<std::pair<std::string, std::string>> params;
    /// --tune: seconds of measured search (negative: none).
    double tune_seconds = -1;
    uint64_t tune_seed = 1;
    std::string tune_log;
    /// --tune-jobs: helper processes compiling candidates (0: one per hardware thread).
    int tune_jobs = 0;
    /// -s / -S: the autoscheduler that auto_schedule=true uses.
    std::string default_autoscheduler;
};

double number_of(const std::string &flag, const std::string &text) {
    try {
        size_t used = 0;
        double v = std::stod(text, &used);
        if (used == text.size() && v >= 0) return v;
    } catch (const std::exception &) {
    }
    throw UsageError{flag + ": cannot use \"" + text + "\"; write a non-negative number."};
}

CommandLine parse(int argc, char **argv) {
    CommandLine c;
    std::set<std::string> seen_params;
    for (int i = 1; i < argc; i++) {
        const std::string arg = argv[i];
        auto value = [&](const char *what) {
            if (i + 1 >= argc)
                throw UsageError{arg + " needs a value: " + arg + " <" + what + ">."};
            return std::string(argv[++i]);
        };
        if (arg == "--help" || arg == "-h") {
            c.help = true;
        } else if (arg == "--list") {
            c.list = true;
        } else if (arg == "-g") {
            c.generator = value("generator name");
        } else if (arg == "-o") {
            c.output_dir = value("output dir");
        } else if (arg == "-f") {
            c.function_name = value("function name");
        } else if (arg == "-e") {
            c.emits = parse_emits(value("emit,..."));
        } else if (arg == "-s" || arg == "-S") {
            c.default_autoscheduler = value("autoscheduler name");
        } else if (arg == "-p") {
            value("plugin library");
        } else if (arg == "--tune") {
            c.tune_seconds = number_of(arg, value("seconds"));
        } else if (arg == "--tune-seed") {
            c.tune_seed = static_cast<uint64_t>(number_of(arg, value("n")));
        } else if (arg == "--tune-log") {
            c.tune_log = value("file");
        } else if (arg == "--tune-jobs") {
            const double jobs = number_of(arg, value("n"));
            if (jobs < 1 || jobs > 1024 || jobs != static_cast<int>(jobs))
                throw UsageError{arg + ": cannot use \"" + argv[i] +
                                 "\"; write a whole number of processes from 1 to 1024."};
            c.tune_jobs = static_cast<int>(jobs);
        } else if (arg.size() > 1 && arg[0] != '-' && arg.find('=') != std::string::npos &&
                   arg.find('=') > 0) {
            size_t eq = arg.find('=');
            std::string name = arg.substr(0, eq);
            if (!seen_params.insert(name).second) {
                throw UsageError{"the GeneratorParam \"" + name +
                                 "\" is given twice; give it once."};
            }
            c.params.emplace_back(name, arg.substr(eq + 1));
        } else {
            throw UsageError{"unknown argument \"" + arg +
                             "\"; flags are -g, -o, -e, -f, -s, -p, --tune, --tune-seed, "
                             "--tune-log, --tune-jobs, --list, --help, "
                             "and GeneratorParams are "
                             "written <param>=<value>."};
        }
    }
    return c;
}

int run(int argc, char **argv) {
    const std::string program = argc > 0 ? argv[0] : "generator";
    for (const std::string &e : dsl::detail::generator_registration_errors()) {
        std::cerr << e << "\n";
    }
    if (!dsl::detail::generator_registration_errors().empty()) return 1;
    try {
        CommandLine c = parse(argc, argv);
        if (c.help) {
            print_help(program);
            return 0;
        }
        if (c.list) {
            for (const std::string &name : dsl::registered_generators())
                std::cout << name << "\n";
            return 0;
        }
        if (c.generator.empty()) {
            throw UsageError{"missing -g <generator>; registered generators: " + generator_list() +
                             "."};
        }
        if (c.output_dir.empty()) {
            throw UsageError{"missing -o <output dir>; name the folder for the generated files."};
        }
        std::unique_ptr<GeneratorBase> g = dsl::create_generator(c.generator);
        for (const auto &[name, value] : c.params)
            g->set_param(name, value);
        if (!c.default_autoscheduler.empty() && g->auto_schedule &&
            g->autoscheduler.value().empty())
            g->set_param("autoscheduler", c.default_autoscheduler);
        if (c.tune_seconds >= 0) {
            dsl::TuneOptions o;
            o.seconds = c.tune_seconds;
            o.seed = c.tune_seed;
            o.log_file = c.tune_log;
            o.jobs = c.tune_jobs;
            const std::string mp = g->machine_params.value();
            o.machine = mp.empty() ? dsl::MachineParams::host() : dsl::MachineParams(mp);
            dsl::TuneResults r = g->tune(o);
            std::cout << c.generator << ": tuned for " << c.tune_seconds << " s, " << r.measured
                      << " candidates (" << r.rejected << " refused, " << r.compiled_by_helpers
                      << " compiled by helper processes): " << r.best_ms
                      << " ms against the autoscheduler's " << r.heuristic_ms << " ms\n";
        }
        g->emit(c.output_dir, c.function_name, c.emits);
        return 0;
    } catch (const UsageError &e) {
        std::cerr << "Error: " << e.message << "\n\n" << usage(program);
    } catch (const dsl::Error &e) {
        std::cerr << e.what() << "\n";
    } catch (const std::exception &e) {
        std::cerr << "Error: " << e.what() << "\n";
    }
    return 1;
}

}  // namespace

int main(int argc, char **argv) {
    return run(argc, argv);
}
