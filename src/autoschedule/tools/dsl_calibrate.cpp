// dsl-calibrate: measures what the autoscheduler's cost model charges on this machine
// (MachineCosts::measure) and writes it where MachineCosts::host() reads it.
//
//   dsl-calibrate [-o FILE] [--print]
//
// FILE defaults to MachineCosts::default_path() (DSL_MACHINE_FILE, or
// $XDG_CONFIG_HOME/dsl/machine.txt, or ~/.config/dsl/machine.txt). --print only prints.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "dsl/AutoSchedule.h"
#include "dsl/Error.h"

namespace {

int usage(const char *why) {
    std::cerr << "dsl-calibrate: " << why << "\nusage: dsl-calibrate [-o FILE] [--print]\n";
    return 2;
}

}  // namespace

int main(int argc, char **argv) {
    std::string path;
    bool print_only = false;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "-o") {
            if (i + 1 >= argc) return usage("-o needs a file name");
            path = argv[++i];
        } else if (a == "--print") {
            print_only = true;
        } else if (a == "-h" || a == "--help") {
            std::cout << "usage: dsl-calibrate [-o FILE] [--print]\n"
                      << "Measures arithmetic, cache and memory bandwidth and parallel-loop costs "
                         "for the autoscheduler's cost model.\n";
            return 0;
        } else {
            return usage(("unknown argument \"" + a + "\"").c_str());
        }
    }
    try {
        if (path.empty() && !print_only) path = dsl::MachineCosts::default_path();
        if (path.empty() && !print_only)
            return usage("no file to write: give -o FILE, or set DSL_MACHINE_FILE or HOME");
        dsl::MachineCosts c = dsl::MachineCosts::measure();
        std::printf("threads                     %d\n", c.threads);
        std::printf("vector operation            %.3f ns\n", c.vector_op_ns);
        std::printf("first-level cache (%4llu KiB) %.1f bytes/ns\n",
                    static_cast<unsigned long long>(c.l1_bytes >> 10), c.l1_bytes_per_ns);
        std::printf("second-level (%6llu KiB)    %.1f bytes/ns\n",
                    static_cast<unsigned long long>(c.l2_bytes >> 10), c.l2_bytes_per_ns);
        std::printf("last-level (%8llu KiB)    %.1f bytes/ns\n",
                    static_cast<unsigned long long>(c.llc_bytes >> 10), c.llc_bytes_per_ns);
        std::printf("main memory, one thread     %.1f bytes/ns\n", c.dram_bytes_per_ns);
        std::printf("main memory, every thread   %.1f bytes/ns\n", c.dram_parallel_bytes_per_ns);
        std::printf("parallel loop               %.0f ns\n", c.parallel_loop_ns);
        if (print_only) return 0;
        c.save(path);
        std::printf("written to %s\n", path.c_str());
    } catch (const dsl::Error &e) {
        std::cerr << "dsl-calibrate: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
