// Uses libsmall through its installed headers: parses YAML (libfyaml), hashes
// (nettle) and computes a replay id (canonical JSON). Prints the
// id; exits 1 when a result is not the known one.
#include <iostream>
#include <string>

#include "small/doc/yaml.hpp"
#include "small/model/replay_id.hpp"

namespace {

small::Result<small::Document> parse(const std::string& text, const std::string& file) {
    return small::parse_yaml(text, file);
}

}  // namespace

int main() {
    if (small::sha256_hex("abc") != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") {
        std::cerr << "sha256_hex is wrong\n";
        return 1;
    }
    const auto intent = parse("small_version: \"1.0.0\"\nowner: \"human\"\nintent: \"Build a widget\"\n"
                              "scope:\n  include: []\n  exclude: []\nsuccess_criteria: []\n",
                              "intent.small.yml");
    const auto plan = parse("small_version: \"1.0.0\"\nowner: \"agent\"\ntasks:\n"
                            "  - id: \"task-1\"\n    title: \"Initial task\"\n",
                            "plan.small.yml");
    if (!intent || !plan) {
        std::cerr << "parse failed\n";
        return 1;
    }
    const auto id = small::compute_replay_id(intent->root(), plan->root(), small::NodeRef());
    if (!id || !small::is_valid_replay_id(*id)) {
        std::cerr << "replay id failed\n";
        return 1;
    }
    // A parse error names file:line:column.
    const auto bad = parse("a: [1, 2\n", "bad.yml");
    if (bad || bad.error().line == 0) {
        std::cerr << "a broken YAML document was not reported with its line\n";
        return 1;
    }
    std::cout << *id << '\n';
    return 0;
}
