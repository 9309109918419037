// The key of a pipeline's definitions (lang/DefinitionKey.h), under which the JIT's disk cache
// stores compiled code that a later process runs without lowering: every change that lowering
// can see gives another key, and nothing else does (new Funcs of the same names, Param values,
// the contents of input buffers). The arguments stored beside the code are restored only when
// they fit the caller's pipeline (lang/StoredArguments.h).
#include <gtest/gtest.h>

#include <set>

#include "dsl/dsl.h"
#include "lang/DefinitionKey.h"
#include "lang/StoredArguments.h"
#include "lowering/Lower.h"

namespace dsl {
namespace {

std::string key_of(const Func &f) {
    auto key = lang::definition_key(lang::Function(f.contents()));
    EXPECT_TRUE(key.has_value()) << f.name();
    return key ? key->text : std::string();
}

/// A two-stage pipeline with a Param, an ImageParam, a reduction and a schedule; `variant`
/// changes one thing that lowering reads (0: none). Returns the key of its output.
std::string key_of_variant(int variant, int param_value = 1) {
    Param<int> p("dk_p", 1, 0, variant == 1 ? 11 : 10);
    p.set(param_value);
    ImageParam in(variant == 6 ? UInt(8) : UInt(16), 2, "dk_in");
    Func g(variant == 13 ? "dk_g2" : "dk_g"), f("dk_f");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    RDom r(0, variant == 10 ? 4 : 3, "dk_r");
    if (variant == 16) r.where(r.x != 1);
    g(x, y) = variant == 7 ? in(x, y) * p + 1 : in(x, y) * p;
    f(x, y) = cast<int>(g(x, y)) + cast<int>(g(x + 1, y));
    f(x, y) += cast<int>(g(x + r.x, y));
    f.split(x, xo, xi, 8, variant == 2 ? TailStrategy::GuardWithIf : TailStrategy::Auto);
    if (variant == 3) {
        g.compute_at(f, y);
    } else if (variant == 9) {
        g.compute_root();
    } else {
        g.compute_at(f, xo);
    }
    if (variant == 4) g.store_root();
    if (variant == 5) f.vectorize(xi);
    if (variant == 8) f.bound(x, 0, 64);
    if (variant == 11) f.specialize(p > 3).vectorize(xi, 4);
    if (variant == 12) f.update().parallel(y);
    if (variant == 14) g.reorder_storage(y, x);
    if (variant == 15) f.parallel(y);
    if (variant == 17) f.update().unroll(r.x);
    if (variant == 18) f.prefetch(in, xo, y, 1);
    if (variant == 19) f.prefetch(in, xo, y, 2);
    if (variant == 20) f.prefetch(in, xo, y, 1, PrefetchBoundStrategy::Clamp);
    return key_of(f);
}

TEST(DefinitionKey, EveryChangeLoweringSeesGivesAnotherKey) {
    const std::string base = key_of_variant(0);
    EXPECT_EQ(key_of_variant(0), base) << "the same pipeline built again, with new Funcs";
    EXPECT_EQ(key_of_variant(0, 7), base) << "a Param's value is an argument of the code";
    std::set<std::string> keys = {base};
    for (int variant = 1; variant <= 20; variant++) {
        EXPECT_TRUE(keys.insert(key_of_variant(variant)).second) << "variant " << variant;
    }
}

TEST(DefinitionKey, BuffersCountByNameTypeAndDimensionsNotContents) {
    auto key = [](Buffer<> b) {
        Func f("dk_buffer_f");
        Var x("x");
        f(x) = b(x, 0) + 1;
        return key_of(f);
    };
    Buffer<uint8_t> a({8, 2}, "dk_lut"), b({8, 2}, "dk_lut"), c({8, 2}, "dk_other");
    a.fill(1);
    b.fill(2);
    Buffer<uint16_t> d({8, 2}, "dk_lut");
    EXPECT_EQ(key(a), key(b)) << "contents and sizes are arguments";
    EXPECT_NE(key(a), key(c));
    EXPECT_NE(key(a), key(d));
}

TEST(DefinitionKey, InputsAreListedByName) {
    Param<float> gain("dk_gain", 1.0f);
    ImageParam in(Float(32), 1, "dk_input");
    Func f("dk_inputs_f");
    Var x("x");
    f(x) = in(x)*gain + cast<float>(in.width());
    auto key = lang::definition_key(lang::Function(f.contents()));
    ASSERT_TRUE(key);
    ASSERT_EQ(key->inputs.size(), 2u);
    EXPECT_TRUE(key->inputs.at("dk_input").is_buffer);
    EXPECT_EQ(key->inputs.at("dk_input").dimensions, 1);
    EXPECT_FALSE(key->inputs.at("dk_gain").is_buffer);
    EXPECT_EQ(key->inputs.at("dk_gain").type, Float(32));
}

TEST(DefinitionKey, NoKeyForTwoInputsOfOneName) {
    Param<int> a("dk_same"), b("dk_same");
    Func f("dk_same_f");
    Var x("x");
    f(x) = x + a + b;
    EXPECT_FALSE(lang::definition_key(lang::Function(f.contents())).has_value());
}

/// A pipeline whose every Func, Param, buffer, reduction domain and variable is named with
/// `prefix`; `variant` changes one thing that is not a name (0: none).
std::string canonical_key_of(const std::string &prefix, int variant = 0,
                             lang::KeyNames names = lang::KeyNames::Canonical) {
    Param<float> p(prefix + "p", 2.0f);
    ImageParam in(Float(32), 2, prefix + "in");
    Buffer<float> lut({4}, prefix + "lut");
    Func g(prefix + "g"), f(prefix + "f");
    Var x(prefix + "x"), y(prefix + "y"), xo(prefix + "xo"), xi(prefix + "xi");
    RDom r(0, 3, prefix + "r");
    g(x, y) = in(x, y) * p + lut(x % 4);
    f(x, y) = variant == 1 ? sqrt(g(x, y)) : variant == 2 ? exp(g(x, y)) : g(x, y) * 0.5f;
    f(x, y) += g(x + r.x, y);
    f.split(x, xo, xi, variant == 3 ? 4 : 8).vectorize(xi);
    g.compute_at(f, xo);
    auto key = lang::definition_key(lang::Function(f.contents()), names);
    EXPECT_TRUE(key.has_value()) << prefix;
    return key ? key->text : std::string();
}

TEST(DefinitionKey, CanonicalNamesLeaveOutTheNamesOfThePipeline) {
    const std::string a = canonical_key_of("one_"), b = canonical_key_of("two_");
    EXPECT_EQ(a, b);
    EXPECT_EQ(a.find("one_"), std::string::npos) << "a name is left in the key";
    EXPECT_NE(canonical_key_of("one_", 0, lang::KeyNames::AsGiven),
              canonical_key_of("two_", 0, lang::KeyNames::AsGiven));
    // What the code computes still counts, the C functions it calls included.
    std::set<std::string> keys = {a};
    for (int variant = 1; variant <= 3; variant++)
        EXPECT_TRUE(keys.insert(canonical_key_of("one_", variant)).second) << variant;
}

TEST(DefinitionKey, CanonicalInputsAreListedByTheirNewNames) {
    Param<float> gain("ck_gain", 1.0f);
    ImageParam in(Float(32), 1, "ck_input");
    Func f("ck_f");
    Var x("x");
    f(x) = in(x)*gain;
    auto key = lang::definition_key(lang::Function(f.contents()), lang::KeyNames::Canonical);
    ASSERT_TRUE(key);
    ASSERT_EQ(key->inputs.size(), 2u);
    for (const auto &[name, input] : key->inputs) {
        EXPECT_EQ(name, key->rename(input.name));
        EXPECT_EQ(name[0], '#') << name;
    }
    EXPECT_EQ(key->rename("ck_f.s0.x"), key->rename("ck_f") + ".s0." + key->rename("x"));
    EXPECT_EQ(key->rename("ck_f_a0"), key->rename("ck_f") + "_a0");
    EXPECT_EQ(key->rename("ck_fx"), "ck_fx") << "only whole names are renamed";
}

TEST(StoredArguments, RestoredOnlyWhenTheyFitThePipeline) {
    Param<int> p("sa_p", 2);
    ImageParam in(Int(32), 2, "sa_in");
    Func f("sa_f");
    Var x("x"), y("y");
    f(x, y) = in(x, y) + p;
    lang::Function func(f.contents());
    auto key = lang::definition_key(func);
    ASSERT_TRUE(key);
    auto lowered = lowering::lower({func}, "sa_pipeline");
    const std::string stored = lang::describe_arguments(lowered.module.functions[0],
                                                        {"one warning", "and\nanother"}, true);

    lowering::LoweredPipeline restored;
    std::vector<std::string> warnings;
    std::string problem;
    ASSERT_TRUE(lang::restore_arguments(stored, {func}, "sa_pipeline", *key, &restored, &warnings,
                                        &problem))
        << problem;
    EXPECT_EQ(warnings, (std::vector<std::string>{"one warning", "and\nanother"}));
    EXPECT_TRUE(restored.outputs_may_grow);
    lowering::LoweredPipeline exact;
    exact.outputs_may_grow = true;
    ASSERT_TRUE(
        lang::restore_arguments(lang::describe_arguments(lowered.module.functions[0], {}, false),
                                {func}, "sa_pipeline", *key, &exact, &warnings, &problem))
        << problem;
    EXPECT_FALSE(exact.outputs_may_grow);
    ASSERT_EQ(restored.module.functions.size(), 1u);
    const ir::LoweredFunc &rf = restored.module.functions[0];
    const ir::LoweredFunc &lf = lowered.module.functions[0];
    EXPECT_EQ(rf.name, "sa_pipeline");
    ASSERT_EQ(rf.args.size(), lf.args.size());
    for (size_t i = 0; i < rf.args.size(); i++) {
        EXPECT_EQ(rf.args[i].name, lf.args[i].name);
        EXPECT_EQ(rf.args[i].kind, lf.args[i].kind);
        EXPECT_EQ(rf.args[i].type, lf.args[i].type);
        EXPECT_EQ(rf.args[i].dimensions, lf.args[i].dimensions);
    }
    ASSERT_EQ(restored.inputs.size(), lowered.inputs.size());
    for (size_t i = 0; i < restored.inputs.size(); i++)
        EXPECT_EQ(restored.inputs[i].name, lowered.inputs[i].name);

    auto refused = [&](const std::string &text, const std::string &expected) {
        lowering::LoweredPipeline out;
        std::vector<std::string> ignored;
        std::string why;
        EXPECT_FALSE(
            lang::restore_arguments(text, {func}, "sa_pipeline", *key, &out, &ignored, &why))
            << text;
        EXPECT_NE(why.find(expected), std::string::npos) << why;
    };
    refused("garbage", "does not parse");
    refused(stored.substr(0, stored.size() - 3), "does not parse");
    // Another process's pipeline with an input of the same key but another name cannot happen;
    // an entry naming an input this pipeline lacks is refused all the same.
    std::string renamed = stored;
    renamed.replace(renamed.find("5:sa_in"), 7, "5:sa_xx");
    refused(renamed, "input buffer \"sa_xx\"");
    // The output is not the one this Func computes.
    std::string other_output = stored;
    other_output.replace(other_output.find("4:sa_f"), 6, "4:sa_g");
    refused(other_output, "not an output of \"sa_f\"");
    refused(stored.substr(0, stored.rfind('\n', stored.find("4:sa_f")) + 1), "output buffers");
    refused(stored + "w 99:short\n", "list of warnings does not parse");
}

}  // namespace
}  // namespace dsl
