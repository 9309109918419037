// Which targets realize() agrees to run on a machine.
#include <gtest/gtest.h>

#include "common/ErrorCheck.h"
#include "lang/JITTarget.h"

namespace dsl {
namespace {

using lang::check_jit_target;
using test::message_of;

TEST(JITTarget, RunsTargetsTheMachineCanExecute) {
    Target avx2_machine("x86-64-linux-avx2-fma");
    EXPECT_NO_THROW(check_jit_target("f", Target("x86-64-linux"), avx2_machine));
    EXPECT_NO_THROW(check_jit_target("f", Target("x86-64-linux-avx2"), avx2_machine));
    EXPECT_NO_THROW(check_jit_target("f", Target("x86-64-linux-sse41-fma"), avx2_machine));
    EXPECT_NO_THROW(check_jit_target("f", Target("arm-64-linux"), Target("arm-64-linux")));
    EXPECT_NO_THROW(check_jit_target("f", Target::host(), Target::host()));
    // fp_contract asks nothing of the CPU.
    EXPECT_NO_THROW(check_jit_target("f", Target("x86-64-linux-avx2-fp_contract"), avx2_machine));
    EXPECT_NO_THROW(check_jit_target("f", Target("host-fp_contract"), Target::host()));
}

TEST(JITTarget, RefusesFeaturesTheMachineLacks) {
    std::string msg = message_of([] {
        check_jit_target("blur", Target("x86-64-linux-avx512"), Target("x86-64-linux-avx2-fma"));
    });
    EXPECT_CONTAINS(msg, "realize(\"blur\")");
    EXPECT_CONTAINS(msg, "\"x86-64-linux-avx512\"");
    EXPECT_CONTAINS(msg, "lacks: f16c, avx512");
    EXPECT_CONTAINS(msg, "Target::host()");
    EXPECT_CONTAINS(msg, "compile_to_*");
}

TEST(JITTarget, RefusesAnotherArchitecture) {
    std::string msg = message_of(
        [] { check_jit_target("blur", Target("arm-64-linux"), Target("x86-64-linux-avx2")); });
    EXPECT_CONTAINS(msg, "realize(\"blur\")");
    EXPECT_CONTAINS(msg, "\"arm-64-linux\"");
    EXPECT_CONTAINS(msg, "this machine, which is x86-64-linux");
    EXPECT_CONTAINS(msg, "compile_to_* functions (ahead-of-time compilation");
    msg = message_of(
        [] { check_jit_target("blur", Target("x86-64-linux"), Target("arm-64-linux")); });
    EXPECT_CONTAINS(msg, "which is arm-64-linux");
}

}  // namespace
}  // namespace dsl
