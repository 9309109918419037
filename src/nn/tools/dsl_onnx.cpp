// dsl-onnx: the command-line face of the NN layer (DESIGN.md §8).
//   dsl-onnx info MODEL
//   dsl-onnx run MODEL --input NAME=FILE ... --output-dir DIR [--target T]
//   dsl-onnx test [--expected-failures FILE] [--target T] DIR...
//   dsl-onnx bench MODEL [--shape NAME=1x3x224x224 ...] [--threads N] [--runs N]
//   dsl-onnx compile MODEL [--shape NAME=1x3x224x224 ...] [--name NAME] [--target T] -o DIR
//   dsl-onnx quantize MODEL --calibrate DIR [--method minmax|percentile|entropy] ... -o OUT
// `test --update-expected-failures FILE` rewrites FILE with the tests that fail now, each with a
// reason derived from its message.
// Errors are one line each; exit status 2 for bad usage or a bad file.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "dsl/Error.h"
#include "dsl/nn/Model.h"
#include "dsl/nn/Npy.h"
#include "dsl/nn/QuantizeModel.h"
#include "dsl/runtime/dsl_runtime.h"
#include "nn/onnx/OnnxReader.h"
#include "nn/ops/Elements.h"

namespace {

using dsl::Buffer;

int usage() {
    std::cerr
        << "usage: dsl-onnx info MODEL\n"
           "       dsl-onnx run MODEL --input NAME=FILE ... --output-dir DIR [--target T]\n"
           "       dsl-onnx test [--expected-failures FILE | --update-expected-failures FILE]\n"
           "                     [--timeout SECONDS] [--target T] DIR...\n"
           "       dsl-onnx bench MODEL [--shape NAME=AxBx...]... [--input NAME=FILE]...\n"
           "                      [--threads N] [--runs N] [--target T] [--fixed-point]\n"
           "                      [--no-auto-schedule] [--any-shape]\n"
           "       dsl-onnx compile MODEL [--shape NAME=AxBx...]... [--name NAME] [--target T]\n"
           "                        -o DIR\n"
           "       dsl-onnx quantize MODEL --calibrate DIR [--method minmax|percentile|entropy]\n"
           "                         [--percentile P] [--per-tensor] [--keep-float NODE,...]\n"
           "                         [--quantize-first-last] -o OUT.onnx\n"
           "Inputs are .npy files or ONNX TensorProto .pb files; outputs are written as\n"
           "DIR/<output name>.npy. compile writes DIR/NAME.a and DIR/NAME.h (NAME is \"model\"\n"
           "unless given), whose entry point is NAME_run. quantize calibrates on the samples in\n"
           "DIR (one .npy or .pb file per sample for a model of one input; else one directory\n"
           "per sample holding INPUT.npy or INPUT.pb for each input) and writes the int8 model\n"
           "in ONNX's QDQ form. bench on a target with npu (host-npu) also reports where each\n"
           "quantized operator ran and what the NPU did (per step with DSL_NN_PROFILE=1).\n"
           "--no-auto-schedule gives the kernels that no operator schedules the default\n"
           "schedule instead of the autoscheduler's. run and bench compile for the inputs'\n"
           "extents (constant loop extents throughout); bench --any-shape compiles kernels for\n"
           "any extents the model leaves symbolic instead.\n";
    return 2;
}

/// The first line of an error message.
std::string one_line(const std::string &s) {
    std::string r = s.substr(0, s.find('\n'));
    return r;
}

bool ends_with(const std::string &s, const std::string &suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool exists(const std::string &path) {
    return access(path.c_str(), F_OK) == 0;
}

std::vector<std::string> list_dir(const std::string &dir) {
    std::vector<std::string> names;
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d)) {
            std::string n = e->d_name;
            if (n != "." && n != "..") names.push_back(n);
        }
        closedir(d);
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::string join_shape(const std::vector<std::string> &shape) {
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); i++)
        s += (i ? ", " : "") + shape[i];
    return s + ")";
}

/// A buffer's extents, outermost first (as ModelOptions::shapes and ONNX list them).
std::vector<int64_t> extents_of(const Buffer<> &b) {
    std::vector<int64_t> e;
    for (int d = b.dimensions() - 1; d >= 0; d--)
        e.push_back(b.dim(d).extent());
    return e;
}

std::string shape_of(const Buffer<> &b) {
    std::string s = "(";
    for (int64_t e : extents_of(b))
        s += (s.size() > 1 ? ", " : "") + std::to_string(e);
    return s + ")";
}

int info(const std::string &path) {
    dsl::nn::ModelSummary s = dsl::nn::summarize_model(path);
    std::cout << "model: " << path << " (opset " << s.opset << ")\n";
    for (const auto &v : s.inputs)
        std::cout << "input  " << v.name << ": " << v.type << " " << join_shape(v.shape) << "\n";
    for (const auto &v : s.outputs)
        std::cout << "output " << v.name << ": " << v.type << " " << join_shape(v.shape) << "\n";
    std::cout << "operators:";
    for (const auto &kv : s.operator_counts)
        std::cout << " " << kv.first << " x" << kv.second;
    std::cout << "\n";
    if (s.unsupported.empty()) {
        std::cout << "supported: every operator\n";
    } else {
        for (const std::string &u : s.unsupported)
            std::cout << "unsupported: " << u << "\n";
    }
    return s.unsupported.empty() ? 0 : 1;
}

Buffer<> read_input(const std::string &file) {
    if (ends_with(file, ".npy")) return dsl::nn::load_npy(file);
    return dsl::nn::onnx::read_tensor(file);
}

int run(int argc, char **argv) {
    if (argc < 1) return usage();
    std::string model_path = argv[0];
    std::map<std::string, Buffer<>> inputs;
    std::string output_dir;
    dsl::nn::ModelOptions options;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--input" && i + 1 < argc) {
            std::string spec = argv[++i];
            size_t eq = spec.find('=');
            if (eq == std::string::npos) return usage();
            inputs[spec.substr(0, eq)] = read_input(spec.substr(eq + 1));
        } else if (a == "--output-dir" && i + 1 < argc) {
            output_dir = argv[++i];
        } else if (a == "--target" && i + 1 < argc) {
            options.target = dsl::Target(argv[++i]);
        } else {
            return usage();
        }
    }
    if (output_dir.empty()) return usage();
    // One run: compiled for the inputs' extents (constant loop extents throughout).
    for (const auto &kv : inputs)
        options.shapes[kv.first] = extents_of(kv.second);
    dsl::nn::Model m = dsl::nn::Model::load(model_path, options);
    auto outputs = m.run(inputs);
    for (const auto &kv : outputs) {
        std::string file = output_dir + "/" + kv.first + ".npy";
        dsl::nn::save_npy(file, kv.second);
        std::cout << kv.first << ": " << shape_of(kv.second) << " -> " << file << "\n";
    }
    return 0;
}

/// Compares an output with the expected tensor as ONNX's backend tests do (relative tolerance
/// 1e-3, absolute 1e-7; NaN matches NaN). Empty when they match, else why not.
std::string compare(const Buffer<> &got, const Buffer<> &want, const std::string &name,
                    double *max_abs, double *max_rel) {
    if (got.type() != want.type()) {
        return "output \"" + name + "\" has type " + dsl::nn::graph::onnx_type_name(got.type()) +
               ", expected " + dsl::nn::graph::onnx_type_name(want.type());
    }
    if (shape_of(got) != shape_of(want)) {
        return "output \"" + name + "\" has shape " + shape_of(got) + ", expected " +
               shape_of(want);
    }
    const int64_t n = got.number_of_elements();
    dsl::Type t = got.type();
    for (int64_t i = 0; i < n; i++) {
        double g = dsl::nn::element_as_double(got, i), w = dsl::nn::element_as_double(want, i);
        if (std::isnan(g) && std::isnan(w)) continue;
        if (std::isinf(w) && g == w) continue;
        double err = std::fabs(g - w);
        if (std::isnan(err)) err = INFINITY;
        *max_abs = std::max(*max_abs, err);
        if (w != 0) *max_rel = std::max(*max_rel, err / std::fabs(w));
        bool ok = t.is_float() ? err <= 1e-7 + 1e-3 * std::fabs(w) : g == w;
        if (!ok) {
            std::ostringstream s;
            s.precision(8);
            s << "output \"" << name << "\" differs at element " << i << ": " << g << ", expected "
              << w;
            return s.str();
        }
    }
    return "";
}

/// ONNX 1.12's test data stores bfloat16 tensors as uint16 (numpy has no bfloat16): such a
/// tensor is read as the bfloat16 the model declares, bits unchanged.
Buffer<> as_declared(const Buffer<> &b, const dsl::nn::Model &m, const std::string &name) {
    if (b.type() != dsl::UInt(16)) return b;
    bool bfloat = false;
    for (const auto &v : m.inputs())
        bfloat |= v.name == name && v.type == "bfloat16";
    for (const auto &v : m.outputs())
        bfloat |= v.name == name && v.type == "bfloat16";
    if (!bfloat) return b;
    // A dense copy (the tensor files are dense) with the declared type.
    std::vector<int> sizes;
    for (int d = 0; d < b.dimensions(); d++)
        sizes.push_back(b.extent(d));
    Buffer<> copy(dsl::Type(dsl::TypeCode::BFloat, 16), sizes, name);
    std::memcpy(copy.data(), b.data(), static_cast<size_t>(b.number_of_elements() * 2));
    return copy;
}

/// Runs one backend test directory; empty when it passes, else why not.
std::string run_test(const std::string &dir, const dsl::nn::ModelOptions &options, double *max_abs,
                     double *max_rel) {
    dsl::nn::Model m = dsl::nn::Model::load(dir + "/model.onnx", options);
    int sets = 0;
    for (const std::string &entry : list_dir(dir)) {
        if (entry.rfind("test_data_set_", 0) != 0) continue;
        std::string set = dir + "/" + entry;
        sets++;
        std::map<std::string, Buffer<>> inputs;
        for (size_t i = 0;; i++) {
            std::string file = set + "/input_" + std::to_string(i) + ".pb";
            if (!exists(file)) break;
            std::string name;
            Buffer<> b = dsl::nn::onnx::read_tensor(file, &name);
            if (name.empty() && i < m.inputs().size()) name = m.inputs()[i].name;
            inputs[name] = as_declared(b, m, name);
        }
        auto outputs = m.run(inputs);
        for (size_t i = 0;; i++) {
            std::string file = set + "/output_" + std::to_string(i) + ".pb";
            if (!exists(file)) break;
            std::string name;
            Buffer<> want = dsl::nn::onnx::read_tensor(file, &name);
            if (name.empty() && i < m.outputs().size()) name = m.outputs()[i].name;
            want = as_declared(want, m, name);
            auto it = outputs.find(name);
            if (it == outputs.end()) return "no output named \"" + name + "\"";
            std::string why = compare(it->second, want, name, max_abs, max_rel);
            if (!why.empty()) return entry + ": " + why;
        }
    }
    if (sets == 0) return "no test_data_set_* folder";
    return "";
}

/// The test's outcome, computed in a child process so that a crash or a hang fails one test,
/// not the run: the child writes "PASS ..." or "FAIL ..." on the pipe.
std::string isolated_test(const std::string &dir, const dsl::nn::ModelOptions &options,
                          int timeout_seconds) {
    int fds[2];
    if (pipe(fds) != 0) return "FAIL cannot create a pipe";
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        std::string line;
        try {
            double max_abs = 0, max_rel = 0;
            std::string why = run_test(dir, options, &max_abs, &max_rel);
            std::ostringstream s;
            s.precision(3);
            if (why.empty())
                s << "PASS max_abs=" << max_abs << " max_rel=" << max_rel;
            else
                s << "FAIL " << why;
            line = s.str();
        } catch (const std::exception &e) {
            line = "FAIL " + one_line(e.what());
        }
        ssize_t unused = write(fds[1], line.data(), line.size());
        (void)unused;
        _exit(0);
    }
    close(fds[1]);
    std::string result;
    char buf[4096];
    auto start = std::chrono::steady_clock::now();
    int status = 0;
    bool finished = false;
    while (!finished) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            finished = true;
            break;
        }
        double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (elapsed > timeout_seconds) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            close(fds[0]);
            return "FAIL timed out after " + std::to_string(timeout_seconds) + " s";
        }
        usleep(2000);
    }
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0)
        result.append(buf, static_cast<size_t>(n));
    close(fds[0]);
    if (WIFSIGNALED(status)) return "FAIL crashed with signal " + std::to_string(WTERMSIG(status));
    if (result.empty()) return "FAIL the test process exited without a result";
    return result;
}

/// The reason a newly failing test is listed with: out of scope, or what is missing.
std::string derive_reason(const std::string &name, const std::string &message) {
    auto has = [&](const char *s) { return message.find(s) != std::string::npos; };
    if (has("of type string") || has("asks for string") ||
        name.find("string") != std::string::npos || name.find("strnorm") != std::string::npos ||
        name.find("tfidf") != std::string::npos)
        return "out of scope: strings";
    if (has("of type sequence") || has("of type optional") ||
        name.find("sequence") != std::string::npos || name.find("optional") != std::string::npos)
        return "out of scope: sequences and optionals";
    if (has("preview.training") || has("training mode") ||
        name.find("training") != std::string::npos)
        return "out of scope: training";
    for (const char *op : {"Bernoulli", "RandomUniformLike", "RandomNormalLike", "RandomUniform",
                           "RandomNormal", "Multinomial"}) {
        if (has((std::string("operator ") + op + " ").c_str())) return "out of scope: random";
    }
    for (const char *op : {"If", "Loop", "Scan"}) {
        if (has((std::string("operator ") + op + " ").c_str())) return "out of scope: control flow";
    }
    if (has("but the model takes"))
        return "test data: the input's shape contradicts the model's declared shape";
    if (name.find("FLOAT_to_BFLOAT16") != std::string::npos && has("differs"))
        return "test data: ONNX 1.12 truncates float to bfloat16; dsl rounds to nearest even";
    size_t at = message.find("operator ");
    size_t end = message.find(" is not supported");
    if (at != std::string::npos && end != std::string::npos && end > at)
        return "missing: " + message.substr(at, end - at);
    return "missing: " + message.substr(0, 120);
}

int test(int argc, char **argv) {
    std::map<std::string, std::string> expected;  // test name -> reason it fails
    std::string expected_file, update_file;
    std::vector<std::pair<std::string, std::string>> failures;  // name, message
    std::vector<std::string> dirs;
    int timeout = 120;
    dsl::nn::ModelOptions options;
    for (int i = 0; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--target" && i + 1 < argc) {
            options.target = dsl::Target(argv[++i]);
        } else if (a == "--expected-failures" && i + 1 < argc) {
            expected_file = argv[++i];
            std::ifstream in(expected_file);
            if (!in.good()) {
                std::cerr << "dsl-onnx: cannot open " << expected_file << "\n";
                return 2;
            }
            std::string line;
            while (std::getline(in, line)) {
                if (line.empty() || line[0] == '#') continue;
                size_t sp = line.find_first_of(" \t");
                std::string name = line.substr(0, sp);
                std::string reason =
                    sp == std::string::npos ? "" : line.substr(line.find_first_not_of(" \t", sp));
                expected[name] = reason;
            }
        } else if (a == "--update-expected-failures" && i + 1 < argc) {
            update_file = argv[++i];
        } else if (a == "--timeout" && i + 1 < argc) {
            timeout = std::atoi(argv[++i]);
        } else {
            dirs.push_back(a);
        }
    }
    if (dirs.empty()) return usage();
    int passed = 0, failed = 0, expected_failed = 0, unexpected = 0;
    for (const std::string &dir : dirs) {
        std::string name = dir;
        while (!name.empty() && name.back() == '/')
            name.pop_back();
        name = name.substr(name.find_last_of('/') + 1);
        std::string outcome = isolated_test(dir, options, timeout);
        bool pass = outcome.rfind("PASS", 0) == 0;
        if (!pass) failures.push_back({name, outcome.substr(5)});
        bool listed = expected.count(name) != 0;
        if (pass)
            passed++;
        else
            failed++;
        if (pass && listed) {
            unexpected++;
            std::cout << "XPASS " << name << ": passes but " << expected_file
                      << " lists it as failing; remove it from the list\n";
        } else if (!pass && listed) {
            expected_failed++;
            std::cout << "XFAIL " << name << " (" << expected[name] << "): " << outcome.substr(5)
                      << "\n";
        } else if (pass) {
            std::cout << "PASS " << name << " " << outcome.substr(5) << "\n";
        } else {
            if (!expected_file.empty()) unexpected++;
            std::cout << "FAIL " << name << ": " << outcome.substr(5) << "\n";
        }
        std::cout.flush();
    }
    if (!update_file.empty()) {
        std::ofstream out(update_file);
        out << "# ONNX backend node tests (Debian's libonnx-testdata, data/node) that dsl fails, "
               "one\n"
               "# per line with the reason: 'out of scope' (strings, sequences and optionals,\n"
               "# training, random, control flow), 'missing' (a feature dsl lacks yet) or 'test\n"
               "# data' (the test's own data is wrong).\n"
               "# `dsl-onnx test --expected-failures` fails on a test that passes while listed\n"
               "# here, so the list cannot go stale. Regenerate it with\n"
               "# `dsl-onnx test --update-expected-failures <this file> <test dirs>`.\n";
        for (const auto &[name, message] : failures) {
            std::string reason = derive_reason(name, message);
            out << name << std::string(name.size() < 60 ? 60 - name.size() : 1, ' ') << reason
                << "\n";
        }
        std::cout << "wrote " << failures.size() << " failing tests to " << update_file << "\n";
    }
    std::cout << passed << " passed, " << failed << " failed";
    if (!expected_file.empty())
        std::cout << " (" << expected_failed << " expected to fail, " << unexpected
                  << " unexpected outcomes)";
    std::cout << "\n";
    if (!expected_file.empty()) return unexpected == 0 ? 0 : 1;
    return failed == 0 ? 0 : 1;
}

/// Reads `NAME=AxBxC` into shapes[NAME]; false if it is not of that form.
bool parse_shape(const std::string &spec, std::map<std::string, std::vector<int64_t>> &shapes) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    std::vector<int64_t> dims;
    std::istringstream in(spec.substr(eq + 1));
    std::string d;
    while (std::getline(in, d, 'x')) {
        if (d.empty() || d.find_first_not_of("0123456789") != std::string::npos) return false;
        dims.push_back(std::atoll(d.c_str()));
    }
    shapes[spec.substr(0, eq)] = dims;
    return true;
}

/// Compiles the model into a static library and its header.
int compile(int argc, char **argv) {
    if (argc < 1) return usage();
    std::string model_path = argv[0];
    dsl::nn::StaticModelOptions options;
    std::string directory;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--shape" && i + 1 < argc) {
            if (!parse_shape(argv[++i], options.shapes)) return usage();
        } else if (a == "--name" && i + 1 < argc) {
            options.name = argv[++i];
        } else if (a == "--target" && i + 1 < argc) {
            options.target = dsl::Target(argv[++i]);
        } else if (a == "-o" && i + 1 < argc) {
            directory = argv[++i];
        } else {
            return usage();
        }
    }
    if (directory.empty()) return usage();
    auto start = std::chrono::steady_clock::now();
    dsl::nn::StaticModel m =
        dsl::nn::compile_model_to_static_library(model_path, directory, options);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout.precision(3);
    std::cout << "wrote " << m.library << " and " << m.header << " (" << m.pipelines
              << " pipelines for " << m.pipelines + m.shared_steps << " steps, "
              << double(m.constant_bytes) / (1 << 20) << " MiB of constants, "
              << double(m.arena_bytes) / (1 << 20) << " MiB arena) in " << seconds << " s\n";
    return 0;
}

/// Where the quantized operators ran, and the NPU's totals over the last run.
void print_npu_report(const dsl::nn::Model &m) {
    int on_npu = 0;
    const std::vector<dsl::nn::NodePlacement> placement = m.placement();
    for (const auto &p : placement) {
        if (p.npu) {
            on_npu++;
        } else {
            std::cout << "on the CPU: node \"" << p.node << "\" (" << p.op_type << "): " << p.reason
                      << "\n";
        }
    }
    const dsl::nn::RunTotals t = dsl::nn::run_totals(m.last_run());
    std::cout << "NPU: " << on_npu << " of " << placement.size()
              << " quantized operators; last run " << t.npu.cycles << " cycles, GEMM "
              << 100 * t.npu.gemm_utilisation << "% of them; " << t.npu_macs << " of " << t.macs
              << " multiply-adds (" << (t.macs ? 100.0 * double(t.npu_macs) / double(t.macs) : 0.0)
              << "%)\n";
}

/// The process's resident memory in MiB: the peak so far (getrusage's ru_maxrss, KiB on Linux)
/// or, with `now`, the current size (/proc/self/statm; the peak where that is missing).
double resident_mib(bool now) {
    if (now) {
        std::ifstream statm("/proc/self/statm");
        long pages = 0, resident = 0;
        if (statm >> pages >> resident)
            return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1 << 20);
    }
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024;
}

/// Times the model on seeded random inputs (or those given): the sizes from --shape, else the
/// declared ones.
int bench(int argc, char **argv) {
    const double resident_at_start = resident_mib(true);
    if (argc < 1) return usage();
    std::string model_path = argv[0];
    std::map<std::string, std::vector<int64_t>> shapes;
    std::map<std::string, Buffer<>> inputs;
    dsl::nn::ModelOptions options;
    bool any_shape = false;
    int runs = 20;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--shape" && i + 1 < argc) {
            if (!parse_shape(argv[++i], shapes)) return usage();
        } else if (a == "--input" && i + 1 < argc) {
            std::string spec = argv[++i];
            size_t eq = spec.find('=');
            if (eq == std::string::npos) return usage();
            inputs[spec.substr(0, eq)] = read_input(spec.substr(eq + 1));
        } else if (a == "--target" && i + 1 < argc) {
            options.target = dsl::Target(argv[++i]);
        } else if (a == "--fixed-point") {
            options.fixed_point_requantization = true;
        } else if (a == "--no-auto-schedule") {
            options.auto_schedule = false;
        } else if (a == "--any-shape") {
            any_shape = true;
        } else if (a == "--threads" && i + 1 < argc) {
            dsl_set_num_threads(std::atoi(argv[++i]));
        } else if (a == "--runs" && i + 1 < argc) {
            runs = std::max(1, std::atoi(argv[++i]));
        } else {
            return usage();
        }
    }
    // Compiled for the sizes it runs (constant loop extents throughout), unless --any-shape
    // asks for kernels of any extents the model leaves symbolic.
    if (!any_shape) {
        options.shapes = shapes;
        for (const auto &kv : inputs)
            options.shapes[kv.first] = extents_of(kv.second);
    }
    auto start = std::chrono::steady_clock::now();
    dsl::nn::Model m = dsl::nn::Model::load(model_path, options);
    double load = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (const auto &v : m.inputs()) {
        if (inputs.count(v.name)) continue;
        std::vector<int64_t> dims;
        if (shapes.count(v.name)) {
            dims = shapes[v.name];
        } else {
            for (const std::string &d : v.shape) {
                if (d.empty() || !std::isdigit(static_cast<unsigned char>(d[0]))) {
                    std::cerr << "dsl-onnx: input \"" << v.name << "\" has a symbolic extent (" << d
                              << "); give its shape with --shape " << v.name << "=...\n";
                    return 2;
                }
                dims.push_back(std::atoll(d.c_str()));
            }
        }
        std::vector<int> sizes(dims.rbegin(), dims.rend());
        if (v.type != "float") {
            std::cerr << "dsl-onnx: bench fills float inputs only; \"" << v.name << "\" is "
                      << v.type << "\n";
            return 2;
        }
        Buffer<float> b(sizes);
        b.for_each_value([&](float &x) { x = dist(rng); });
        inputs[v.name] = b;
    }
    m.run(inputs);  // the first run compiles what a specialized model still needs
    std::vector<double> times;
    for (int r = 0; r < runs; r++) {
        auto t0 = std::chrono::steady_clock::now();
        m.run(inputs);
        times.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    std::cout.precision(4);
    std::cout << "load and compile: " << load * 1e3 << " ms (" << m.compiled_pipelines()
              << " pipelines)\nrun: median " << times[times.size() / 2] * 1e3 << " ms, best "
              << times[0] * 1e3 << " ms over " << runs << " runs\nintermediate tensors: peak "
              << double(m.peak_intermediate_bytes()) / (1 << 20)
              << " MiB\npeak resident memory: " << resident_mib(false) << " MiB ("
              << resident_at_start << " MiB before loading the model)\n";
    if (options.target.has_feature(dsl::Target::Feature::NPU)) print_npu_report(m);
    if (options.target.has_gpu_feature()) {
        // Which steps launched kernels; the others ran on the host between them.
        int on_gpu = 0;
        std::vector<std::string> host;
        for (const dsl::nn::StepReport &s : m.last_run()) {
            if (s.gpu) {
                on_gpu++;
            } else {
                host.push_back(s.output);
            }
        }
        std::cout << "steps on the GPU: " << on_gpu << " of " << m.last_run().size();
        for (size_t i = 0; i < host.size() && i < 8; i++)
            std::cout << (i ? ", " : "; on the host: ") << host[i];
        if (host.size() > 8) std::cout << ", ...";
        std::cout << "\n";
    }
    return 0;
}

/// The calibration samples in `dir`: one file per sample when the model has one input, else
/// one directory per sample with a file per input.
std::vector<std::map<std::string, Buffer<>>> read_samples(
    const std::string &dir, const std::vector<dsl::nn::ModelValue> &inputs) {
    std::vector<std::string> entries;
    DIR *d = opendir(dir.c_str());
    if (!d) throw dsl::CompileError(dir + ": cannot open the calibration directory.");
    while (dirent *e = readdir(d)) {
        std::string name = e->d_name;
        if (name != "." && name != "..") entries.push_back(name);
    }
    closedir(d);
    std::sort(entries.begin(), entries.end());
    std::vector<std::map<std::string, Buffer<>>> samples;
    auto is_tensor = [](const std::string &f) {
        return ends_with(f, ".npy") || ends_with(f, ".pb");
    };
    for (const std::string &e : entries) {
        const std::string path = dir + "/" + e;
        if (inputs.size() == 1 && is_tensor(e)) {
            samples.push_back({{inputs[0].name, read_input(path)}});
            continue;
        }
        if (is_tensor(e)) continue;
        std::map<std::string, Buffer<>> sample;
        for (const auto &in : inputs) {
            for (const char *ext : {".npy", ".pb"}) {
                std::ifstream probe(path + "/" + in.name + ext);
                if (probe.good() && !sample.count(in.name))
                    sample[in.name] = read_input(path + "/" + in.name + ext);
            }
        }
        if (sample.size() == inputs.size()) samples.push_back(sample);
    }
    if (samples.empty()) {
        throw dsl::CompileError(dir +
                                ": no calibration samples (a model of one input takes "
                                ".npy or .pb files; one of several inputs, directories "
                                "holding <input name>.npy for each input).");
    }
    return samples;
}

/// Quantizes the model to int8 in QDQ form, calibrated on samples.
int quantize(int argc, char **argv) {
    if (argc < 1) return usage();
    std::string model_path = argv[0];
    std::string calibration_dir, output;
    dsl::nn::QuantizationOptions options;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--calibrate" && i + 1 < argc) {
            calibration_dir = argv[++i];
        } else if (a == "--method" && i + 1 < argc) {
            std::string m = argv[++i];
            if (m == "minmax") {
                options.calibration = dsl::nn::Calibration::MinMax;
            } else if (m == "percentile") {
                options.calibration = dsl::nn::Calibration::Percentile;
            } else if (m == "entropy") {
                options.calibration = dsl::nn::Calibration::Entropy;
            } else {
                return usage();
            }
        } else if (a == "--percentile" && i + 1 < argc) {
            options.percentile = std::atof(argv[++i]);
        } else if (a == "--per-tensor") {
            options.per_channel = false;
        } else if (a == "--quantize-first-last") {
            options.keep_first_and_last = false;
        } else if (a == "--keep-float" && i + 1 < argc) {
            std::stringstream names(argv[++i]);
            for (std::string n; std::getline(names, n, ',');) {
                if (!n.empty()) options.keep_float.insert(n);
            }
        } else if (a == "-o" && i + 1 < argc) {
            output = argv[++i];
        } else {
            return usage();
        }
    }
    if (calibration_dir.empty() || output.empty()) return usage();
    auto start = std::chrono::steady_clock::now();
    std::vector<std::map<std::string, Buffer<>>> samples =
        read_samples(calibration_dir, dsl::nn::summarize_model(model_path).inputs);
    dsl::nn::QuantizationReport r = dsl::nn::quantize_model(model_path, samples, output, options);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout.precision(3);
    std::cout << "quantized " << r.quantized.size() << " of "
              << r.quantized.size() + r.kept_float.size() << " operators on " << samples.size()
              << " samples in " << seconds << " s";
    if (!r.kept_float.empty()) {
        std::cout << "; kept float:";
        for (const std::string &n : r.kept_float)
            std::cout << " " << n;
    }
    std::cout << "\nwrote " << output << "\n";
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2) return usage();
    std::string command = argv[1];
    try {
        if (command == "info" && argc == 3) return info(argv[2]);
        if (command == "run") return run(argc - 2, argv + 2);
        if (command == "test") return test(argc - 2, argv + 2);
        if (command == "bench") return bench(argc - 2, argv + 2);
        if (command == "compile") return compile(argc - 2, argv + 2);
        if (command == "quantize") return quantize(argc - 2, argv + 2);
        return usage();
    } catch (const dsl::CompileError &e) {
        std::cerr << "dsl-onnx: " << one_line(e.what()) << "\n";
        return 2;
    } catch (const std::exception &e) {
        std::cerr << "dsl-onnx: " << one_line(e.what()) << "\n";
        return 1;
    }
}
