// The table of generators that DSL_REGISTER_GENERATOR fills at static initialisation.
#include <map>
#include "aot/AotModule.h"

#include "dsl/Generator.h"

namespace dsl {

namespace {

struct Registry {
    std::map<std::string, detail::GeneratorFactory> factories;
    std::vector<std::string> errors;
};

// A function-local static: registrations run during static initialisation of other
// translation units, in an order nobody controls.
Registry &registry() {
    static Registry r;
    return r;
}

std::string name_list() {
    std::string s;
    for (const auto &[name, factory] : registry().factories)
        s += (s.empty() ? "" : ", ") + name;
    return s.empty() ? "(none: register one with DSL_REGISTER_GENERATOR)" : s;
}

}  // namespace

namespace detail {

GeneratorRegistration::GeneratorRegistration(const char *name, GeneratorFactory factory) {
    Registry &r = registry();
    if (!aot::is_c_identifier(name)) {
        r.errors.push_back(std::string("Error: DSL_REGISTER_GENERATOR: \"") + name +
                           "\" is not a C identifier; name the generator with letters, digits "
                           "and '_'.");
        return;
    }
    if (!r.factories.emplace(name, factory).second) {
        r.errors.push_back(std::string("Error: DSL_REGISTER_GENERATOR: the name \"") + name +
                           "\" is registered twice; give each generator its own name.");
    }
}

const std::vector<std::string> &generator_registration_errors() {
    return registry().errors;
}

}  // namespace detail

std::vector<std::string> registered_generators() {
    std::vector<std::string> names;
    for (const auto &[name, factory] : registry().factories)
        names.push_back(name);
    return names;
}

std::unique_ptr<GeneratorBase> create_generator(const std::string &name) {
    auto it = registry().factories.find(name);
    if (it == registry().factories.end()) {
        throw CompileError("Error: there is no generator named \"" + name +
                           "\". Registered generators: " + name_list() + ".");
    }
    std::unique_ptr<GeneratorBase> g = it->second();
    g->set_generator_name(name);
    return g;
}

}  // namespace dsl
