// `small` called as git-merge-small: the `git merge -s small` strategy
// (D17). git looks for the strategy NAME as the program git-merge-NAME, in
// its exec-path and on PATH; `cmake --install`, the .deb and the build tree
// put a link of that name beside small, so the one binary is the strategy
// too, and small needs no other file to be it.
//
// The strategy is the POSIX sh program src/git/git-merge-small, compiled in
// (cmake/embed_text.cmake) and run by /bin/sh with the arguments git gave.
// Its "$0" is the name git ran it by: the program runs itself again, once
// per file git cannot settle, through `git merge-index`, which finds it the
// way git found it.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "small/base/merge_strategy.hpp"

namespace small::cli {

bool called_as_merge_strategy(const char* argv0) {
    if (!argv0) return false;
    std::string_view name(argv0);
    if (const std::size_t slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
    return name == kMergeStrategyProgram;
}

int run_merge_strategy(int argc, char** argv) {
    static char shell_name[] = "sh";
    static char command_flag[] = "-c";
    std::vector<char*> args = {shell_name, command_flag, const_cast<char*>(merge_strategy_script()), argv[0]};
    for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
    args.push_back(nullptr);
    ::execv("/bin/sh", args.data());
    const int error = errno;
    std::cerr << kMergeStrategyProgram << ": cannot run /bin/sh: " << std::strerror(error) << '\n';
    return 2;  // the strategy's "cannot do this merge": git restores the work tree
}

}  // namespace small::cli
