// The runtime's object files that the compiler embeds for the static libraries it writes
// (runtime/RuntimeObjects.h) are the ones the build compiled, byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/RuntimeObjects.h"

namespace {

using dsl::runtime::EmbeddedObject;
using dsl::runtime::runtime_objects;

std::vector<std::string> built_object_files() {
    std::vector<std::string> files;
    std::stringstream list(DSL_RUNTIME_OBJECT_FILES);  // "a.o|b.o|..."
    for (std::string file; std::getline(list, file, '|');)
        files.push_back(file);
    return files;
}

/// The member name the embedding gives a built object: ".../ThreadPool.cpp.o" is
/// "dsl_runtime_threadpool.o".
std::string member_name(const std::string &path) {
    std::string stem = path.substr(path.find_last_of('/') + 1);
    stem = stem.substr(0, stem.find('.'));
    std::transform(stem.begin(), stem.end(), stem.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return "dsl_runtime_" + stem + ".o";
}

std::string read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in.good()) << "cannot read " << path;
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(RuntimeObjects, AreElfObjectFilesWithDistinctNames) {
    std::vector<EmbeddedObject> objects = runtime_objects();
    ASSERT_FALSE(objects.empty());
    std::set<std::string> names;
    for (const EmbeddedObject &object : objects) {
        std::string name = object.name;
        EXPECT_EQ(name.rfind("dsl_runtime_", 0), 0u) << name;
        EXPECT_EQ(name.substr(name.size() - 2), ".o") << name;
        EXPECT_TRUE(names.insert(name).second) << "two objects named " << name;
        ASSERT_GT(object.size, 4u) << name;
        EXPECT_EQ(object.data[0], 0x7f) << name;
        EXPECT_EQ(object.data[1], 'E') << name;
        EXPECT_EQ(object.data[2], 'L') << name;
        EXPECT_EQ(object.data[3], 'F') << name;
    }
    EXPECT_TRUE(names.count("dsl_runtime_threadpool.o"));
    EXPECT_TRUE(names.count("dsl_runtime_errors.o"));
    EXPECT_TRUE(std::is_sorted(objects.begin(), objects.end(),
                               [](const EmbeddedObject &a, const EmbeddedObject &b) {
                                   return std::string(a.name) < b.name;
                               }));
}

TEST(RuntimeObjects, EqualTheBuiltObjectFiles) {
    std::vector<EmbeddedObject> objects = runtime_objects();
    std::vector<std::string> files = built_object_files();
    ASSERT_EQ(objects.size(), files.size());
    for (const std::string &file : files) {
        std::string name = member_name(file);
        auto found = std::find_if(objects.begin(), objects.end(),
                                  [&](const EmbeddedObject &o) { return name == o.name; });
        ASSERT_NE(found, objects.end()) << "no embedded object " << name << " for " << file;
        std::string bytes = read_file(file);
        ASSERT_EQ(bytes.size(), found->size) << name;
        EXPECT_TRUE(
            std::equal(bytes.begin(), bytes.end(), found->data,
                       [](char a, unsigned char b) { return static_cast<unsigned char>(a) == b; }))
            << name << " differs from " << file;
    }
}

}  // namespace
