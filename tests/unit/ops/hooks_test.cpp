// `small hooks`: the settings merge and the pre-commit text (in memory),
// and the hook chaining and settings files on a real temporary disk.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <csignal>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "small/model/agent_hooks.hpp"
#include "small/store/atomic_file.hpp"
#include "small/store/hook_files.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

namespace fs = std::filesystem;
using namespace small::testing;

const std::vector<std::string> kClaudeEvents = {"SessionStart", "PreCompact"};

// Install adds small's entries; uninstall removes them from both events
// ("" when only `{}` is left, as the file then goes).
std::string merge(const std::string& text, bool install) {
    Result<AgentHooksEdit> r = install ? add_agent_hooks(text, claude_hook_events(), ".claude/settings.json")
                                       : remove_agent_hooks(text, kClaudeEvents, ".claude/settings.json");
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().describe());
    return !r.ok() || r->empty ? "" : r->text;
}

TEST(AgentHooksMerge, NewFileGetsBothEventsWithTwoSpaceIndent) {
    const std::string text = merge("", true);
    const nlohmann::json doc = nlohmann::json::parse(text);
    ASSERT_EQ(doc["hooks"]["SessionStart"].size(), 1u);
    EXPECT_EQ(doc["hooks"]["SessionStart"][0]["matcher"], "startup|resume|clear|compact");
    EXPECT_EQ(doc["hooks"]["SessionStart"][0]["hooks"][0]["command"], "small status --brief");
    EXPECT_EQ(doc["hooks"]["SessionStart"][0]["hooks"][0]["type"], "command");
    EXPECT_FALSE(doc["hooks"]["PreCompact"][0].contains("matcher"));
    EXPECT_EQ(text.substr(0, 13), "{\n  \"hooks\": ");
    EXPECT_EQ(text.back(), '\n');
}

TEST(AgentHooksMerge, KeepsOtherKeysOrderAndHooksAndRoundTripsExactly) {
    const std::string original =
        "{\n  \"zeta\": 1,\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(ls)\"\n    ]\n  },\n"
        "  \"hooks\": {\n    \"SessionStart\": [\n      {\n        \"hooks\": [\n          {\n"
        "            \"command\": \"echo hi\",\n            \"type\": \"command\"\n          }\n        ]\n"
        "      }\n    ]\n  },\n  \"alpha\": \"ü\"\n}\n";
    const std::string installed = merge(original, true);
    EXPECT_LT(installed.find("\"zeta\""), installed.find("\"alpha\""));  // key order kept
    const nlohmann::json doc = nlohmann::json::parse(installed);
    ASSERT_EQ(doc["hooks"]["SessionStart"].size(), 2u);
    EXPECT_EQ(doc["hooks"]["SessionStart"][0]["hooks"][0]["command"], "echo hi");
    EXPECT_EQ(doc["permissions"]["allow"][0], "Bash(ls)");
    EXPECT_EQ(merge(installed, true), installed);   // idempotent, byte for byte
    EXPECT_EQ(merge(installed, false), original);   // uninstall restores exactly
    EXPECT_EQ(merge(original, false), original);    // nothing of ours: untouched
}

// `hooks install claude --claim` over an install without it (and the
// reverse) changes our session-start command in place, nothing else.
TEST(AgentHooksMerge, InstallingWithOrWithoutClaimUpdatesOurEntryInPlace) {
    const std::string plain = merge("", true);
    Result<AgentHooksEdit> with = add_agent_hooks(plain, claude_hook_events(true), ".claude/settings.json");
    ASSERT_TRUE(with.ok());
    EXPECT_EQ(with->events, std::vector<std::string>{"SessionStart"});
    const nlohmann::json doc = nlohmann::json::parse(with->text);
    ASSERT_EQ(doc["hooks"]["SessionStart"].size(), 1u) << "updated, not added twice";
    EXPECT_EQ(doc["hooks"]["SessionStart"][0]["hooks"][0]["command"], std::string(kAgentClaimHookCommand));
    EXPECT_EQ(doc["hooks"]["PreCompact"][0]["hooks"][0]["command"], std::string(kAgentHookCommand));
    Result<AgentHooksEdit> again = add_agent_hooks(with->text, claude_hook_events(true), ".claude/settings.json");
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(again->events.empty());
    EXPECT_EQ(again->text, with->text);
    EXPECT_EQ(merge(with->text, true), plain) << "installing without --claim again drops the claim";
}

TEST(AgentHooksMerge, UninstallOfOurOwnFileLeavesNothing) {
    EXPECT_EQ(merge(merge("", true), false), "");
    // A file without a final line break keeps it that way.
    const std::string bare = "{\"a\":true}";
    const std::string installed = merge(bare, true);
    EXPECT_NE(installed.back(), '\n');
    EXPECT_EQ(merge(installed, false), "{\n  \"a\": true\n}");
}

TEST(AgentHooksMerge, OurHookSharingAGroupWithAnotherKeepsTheOther) {
    const std::string text = R"({"hooks":{"PreCompact":[{"hooks":[{"type":"command","command":"small status --brief"},)"
                             R"({"type":"command","command":"keep me"}]}]}})";
    const nlohmann::json doc = nlohmann::json::parse(merge(text, false));
    ASSERT_EQ(doc["hooks"]["PreCompact"][0]["hooks"].size(), 1u);
    EXPECT_EQ(doc["hooks"]["PreCompact"][0]["hooks"][0]["command"], "keep me");
    // Installing again sees the entry already there.
    EXPECT_EQ(merge(text, true).find("PreCompact"), merge(text, true).rfind("PreCompact"));
}

TEST(AgentHooksMerge, InvalidJsonNamesLineAndColumn) {
    Result<AgentHooksEdit> r = add_agent_hooks("{\n  \"a\": 1,\n  oops\n}\n", claude_hook_events(), "s.json");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_EQ(r.error().file, "s.json");
    EXPECT_EQ(r.error().line, 3u);
    EXPECT_EQ(r.error().column, 3u);
    EXPECT_NE(r.error().describe().find("s.json:3:3:"), std::string::npos) << r.error().describe();
}

TEST(AgentHooksMerge, WrongShapesAreRefused) {
    for (const char* text : {"[]", "{\"hooks\": []}", "{\"hooks\": {\"SessionStart\": {}}}", "\"x\""}) {
        Result<AgentHooksEdit> r = add_agent_hooks(text, claude_hook_events(), "s.json");
        EXPECT_FALSE(r.ok()) << text;
    }
}

TEST(PreCommitHook, RunsChainedFirstAndChecksOnlyItsWorkspaces) {
    const std::string top = pre_commit_hook_text({""});
    EXPECT_EQ(top.rfind("#!/bin/sh\n", 0), 0u);
    EXPECT_TRUE(is_small_pre_commit_hook(top));
    EXPECT_LT(top.find("pre-commit.small-chained"), top.find("small check --strict"));
    EXPECT_NE(top.find("\":(literal)$1.small\""), std::string::npos);
    EXPECT_NE(top.find("\nsmall_check ''\nexit 0\n"), std::string::npos) << top;
    const std::string sub = pre_commit_hook_text({"it's/"});
    EXPECT_NE(sub.find("\nsmall_check 'it'\\''s/'\n"), std::string::npos) << sub;
    EXPECT_FALSE(is_small_pre_commit_hook("#!/bin/sh\nexit 0\n"));
}

TEST(PreCommitHook, OneHookListsEveryWorkspaceAndReadsThemBack) {
    const std::vector<std::string> prefixes = {"z/", "", "it's/", "a b/", "x'y'/", "z/"};
    const std::string text = pre_commit_hook_text(prefixes);
    EXPECT_EQ(pre_commit_hook_prefixes(text), (std::vector<std::string>{"", "a b/", "it's/", "x'y'/", "z/"}));
    EXPECT_EQ(text, pre_commit_hook_text({"x'y'/", "a b/", "z/", "it's/", ""})) << "order does not matter";
    EXPECT_TRUE(pre_commit_hook_prefixes("#!/bin/sh\nsmall check --strict\nexit 0\n").empty());
    EXPECT_TRUE(pre_commit_hook_prefixes("small_check unquoted\nsmall_check 'open\n").empty());
}

// Install names the events it added; uninstall takes small's hook out of
// those alone, so the user's identical entry elsewhere stays, and an empty
// object is kept as `{}` for the caller to decide on.
TEST(AgentHooksMerge, AddNamesTheEventsAndRemoveTouchesOnlyThose) {
    const std::string mine =
        R"({"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"small status --brief"}]}]}})";
    Result<AgentHooksEdit> added = add_agent_hooks(mine, claude_hook_events(), "s.json");
    ASSERT_TRUE(added.ok());
    EXPECT_EQ(added->events, (std::vector<std::string>{"PreCompact"}));
    Result<AgentHooksEdit> removed = remove_agent_hooks(added->text, added->events, "s.json");
    ASSERT_TRUE(removed.ok());
    EXPECT_EQ(removed->events, (std::vector<std::string>{"PreCompact"}));
    EXPECT_FALSE(removed->empty);
    EXPECT_EQ(nlohmann::json::parse(removed->text), nlohmann::json::parse(mine));

    Result<AgentHooksEdit> none = remove_agent_hooks(mine, {"PreCompact"}, "s.json");
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none->events.empty());
    EXPECT_EQ(none->text, mine);  // byte for byte

    Result<AgentHooksEdit> into_empty = add_agent_hooks("{}", codex_hook_events(), "h.json");
    ASSERT_TRUE(into_empty.ok());
    Result<AgentHooksEdit> back = remove_agent_hooks(into_empty->text, {"SessionStart"}, "h.json");
    ASSERT_TRUE(back.ok());
    EXPECT_TRUE(back->empty);
    EXPECT_EQ(back->text, "{}");
}

// A folder name may hold a line break, quotes or `$()`: each is read back
// from the hook exactly.
TEST(PreCommitHook, OddPrefixesReadBackExactly) {
    const std::vector<std::string> prefixes = {"-x/", "$(touch pwned)/", "a\nb/", "q'\"/", "\n/", "--help/"};
    const std::string text = pre_commit_hook_text(prefixes);
    std::vector<std::string> sorted = prefixes;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(pre_commit_hook_prefixes(text), sorted);
    EXPECT_NE(text.find("--dir=\"${dir:-.}\""), std::string::npos) << "a folder starting with '-' is not a flag";
}

TEST(HookRecord, RoundTripsAndRefusesOtherText) {
    HookRecord record;
    record.files.push_back({".gitattributes", false, std::string("*.png binary\n"), "*.png binary\nx\n", {"x"}});
    record.files.push_back({".claude/settings.json", true, std::nullopt, "{}\n", {"SessionStart", "PreCompact"}});
    record.config = {{"merge.small.name", "small merge driver"}, {"merge.small.driver", "small merge -- %O %A %B %P"}};
    Result<HookRecord> back = parse_hook_record(hook_record_text(record), "r.json");
    ASSERT_TRUE(back.ok()) << back.error().describe();
    EXPECT_EQ(hook_record_text(*back), hook_record_text(record));
    ASSERT_NE(back->file(".gitattributes"), nullptr);
    EXPECT_EQ(back->file(".gitattributes")->before, std::optional<std::string>("*.png binary\n"));
    EXPECT_FALSE(back->file(".claude/settings.json")->before);
    EXPECT_EQ(*back->config_value("merge.small.driver"), "small merge -- %O %A %B %P");
    EXPECT_EQ(back->config_value("merge.small.other"), nullptr);
    for (const char* text : {"", "{}", "[1]", "{\"version\": 2, \"files\": [], \"config\": {}}"}) {
        Result<HookRecord> bad = parse_hook_record(text, "r.json");
        ASSERT_FALSE(bad.ok()) << text;
        EXPECT_NE(bad.error().describe().find("r.json"), std::string::npos);
    }
}

TEST(HookRecord, WrittenReadAndRemovedWithItsFolder) {
    TempWorkspace t;
    const std::string path = hook_record_path(t.ws().root, "git");
    EXPECT_EQ(path, t.ws().root + "/.small-cache/hooks/git.json");
    Result<std::optional<HookRecord>> none = read_hook_record(path);
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(*none);
    HookRecord record;
    record.config = {{"merge.small.driver", "small merge -- %O %A %B %P"}};
    ASSERT_TRUE(write_hook_record(real_fs, t.ws(), path, record).ok());
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    Result<std::optional<HookRecord>> read = read_hook_record(path);
    ASSERT_TRUE(read.ok() && *read);
    EXPECT_EQ((*read)->config.size(), 1u);
    ASSERT_TRUE(write_hook_record(real_fs, t.ws(), path, HookRecord{}).ok());
    EXPECT_FALSE(fs::exists(t.ws().root + "/.small-cache/hooks"));
}

TEST(PreCommitHook, TheOneWorkspaceHookOfEarlierVersionsIsRead) {
    const std::string old = "#!/bin/sh\n# small-managed-hook: pre-commit v1\n"
                            "if [ -n \"$(git diff --cached --name-only -- ':(literal)it'\\''s/.small')\" ]; then\n"
                            "    small check --strict --dir 'it'\\''s' || {\n        status=$?\n    }\nfi\nexit 0\n";
    EXPECT_EQ(pre_commit_hook_prefixes(old), (std::vector<std::string>{"it's/"}));
    EXPECT_EQ(pre_commit_hook_prefixes("#!/bin/sh\n    small check --strict --dir '.' || {\n"),
              (std::vector<std::string>{""}));
}

// ---------------------------------------------------------------- disk

TEST(HookFiles, LinkKeepsBytesModeAndRenameRestoresThem) {
    TempWorkspace t;
    const std::string dir = t.path("hooks");
    Result<bool> made = ensure_hooks_folder(dir);
    ASSERT_TRUE(made.ok() && *made);
    const std::string original = "#!/bin/sh\r\necho mine\r\nexit 0";  // CRLF, no final break
    write_text(dir + "/pre-commit", original);
    ::chmod((dir + "/pre-commit").c_str(), 0750);
    ASSERT_TRUE(chain_hook_file(real_fs, dir, "pre-commit", "pre-commit.small-chained", pre_commit_hook_text({""})).ok());
    Result<HookFileState> ours = read_hook_file(dir, "pre-commit");
    ASSERT_TRUE(ours.ok());
    EXPECT_EQ(ours->mode, 0755u);
    EXPECT_TRUE(is_small_pre_commit_hook(ours->content));
    Result<HookFileState> kept = read_hook_file(dir, "pre-commit.small-chained");
    ASSERT_TRUE(kept.ok());
    EXPECT_EQ(kept->content, original);
    ASSERT_TRUE(rename_hook_file(dir, "pre-commit.small-chained", "pre-commit").ok());
    Result<HookFileState> back = read_hook_file(dir, "pre-commit");
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->content, original);
    EXPECT_EQ(back->mode, 0750u);
    EXPECT_EQ(read_hook_file(dir, "pre-commit.small-chained")->kind, HookFileState::Kind::Missing);
    for (const auto& e : fs::directory_iterator(dir)) EXPECT_EQ(e.path().filename(), "pre-commit");  // no temp left
}

// Without hard links the hook is renamed away before ours is written; when
// that write fails (here: a file size limit of 0), the rename is undone.
TEST(HookFiles, AFailedWriteAfterTheRenameFallbackPutsTheHookBack) {
    TempWorkspace t;
    const std::string dir = t.path("hooks");
    ASSERT_TRUE(ensure_hooks_folder(dir).ok());
    const std::string original = "#!/bin/sh\nexit 0\n";
    write_text(dir + "/pre-commit", original);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ::signal(SIGXFSZ, SIG_IGN);
        const rlimit none{0, 0};
        ::setrlimit(RLIMIT_FSIZE, &none);
        const Status s = chain_hook_file(real_fs, dir, "pre-commit", "pre-commit.small-chained", pre_commit_hook_text({""}),
                                         HardLinks::Never);
        ::_exit(s.ok() ? 10 : 0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0) << "the write must fail under a size limit of 0";
    Result<HookFileState> back = read_hook_file(dir, "pre-commit");
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->content, original) << "the user's hook is back under its name";
    Result<HookFileState> kept = read_hook_file(dir, "pre-commit.small-chained");
    ASSERT_TRUE(kept.ok());
    EXPECT_EQ(kept->kind, HookFileState::Kind::Missing);
    // And without the limit the fallback chains as the link does.
    ASSERT_TRUE(chain_hook_file(real_fs, dir, "pre-commit", "pre-commit.small-chained", pre_commit_hook_text({""}),
                                HardLinks::Never).ok());
    EXPECT_EQ(read_hook_file(dir, "pre-commit.small-chained")->content, original);
    EXPECT_TRUE(is_small_pre_commit_hook(read_hook_file(dir, "pre-commit")->content));
}

TEST(HookFiles, TheHooksFolderLockIsExclusiveAndWaitsThenIsBusy) {
    TempWorkspace t;
    const std::string dir = t.path("hooks");
    ASSERT_TRUE(ensure_hooks_folder(dir).ok());
    Result<Fd> first = lock_hooks_folder(dir, std::chrono::milliseconds(0));
    ASSERT_TRUE(first.ok()) << first.error().describe();
    Result<Fd> second = lock_hooks_folder(dir, std::chrono::milliseconds(50));
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.error().kind, Error::Kind::Busy);
    EXPECT_NE(second.error().message.find(dir), std::string::npos);
    first->reset();
    EXPECT_TRUE(lock_hooks_folder(dir, std::chrono::milliseconds(0)).ok()) << "released with its descriptor";
}

TEST(HookFiles, LinksAndNonFilesAreReportedAndNotWritten) {
    TempWorkspace t;
    const std::string dir = t.path("hooks");
    fs::create_directories(dir + "/pre-commit");
    EXPECT_EQ(read_hook_file(dir, "pre-commit")->kind, HookFileState::Kind::Other);
    EXPECT_FALSE(write_file_in_folder_atomic(real_fs, dir, "pre-commit", "x", 0755).ok());
    fs::create_symlink("/etc/hostname", dir + "/post-commit");
    EXPECT_EQ(read_hook_file(dir, "post-commit")->kind, HookFileState::Kind::Link);
    EXPECT_FALSE(write_file_in_folder_atomic(real_fs, dir, "post-commit", "x", 0755).ok());
}

constexpr WriteOptions kSettings{.scope = WriteScope::AgentSettings};

TEST(AgentSettingsFiles, OnlyTheTwoNamesAndNoLinks) {
    TempWorkspace t;
    const std::string claude = t.path(".claude/settings.json");
    ASSERT_TRUE(write_file_atomic(real_fs, t.ws(), claude, "{}\n", kSettings).ok());
    EXPECT_EQ(read_text(claude), "{}\n");
    EXPECT_FALSE(write_file_atomic(real_fs, t.ws(), t.path(".claude/other.json"), "{}", kSettings).ok());
    EXPECT_FALSE(write_file_atomic(real_fs, t.ws(), t.path("settings.json"), "{}", kSettings).ok());
    ASSERT_TRUE(remove_file(real_fs, t.ws(), claude, WriteScope::AgentSettings).ok());
    EXPECT_FALSE(fs::exists(t.path(".claude")));  // the folder left empty goes too

    fs::create_directory(t.path("elsewhere"));
    fs::create_directory_symlink(t.path("elsewhere"), t.path(".codex"));
    EXPECT_FALSE(check_replaceable(real_fs, t.ws(), t.path(".codex/hooks.json"), WriteScope::AgentSettings).ok());
    EXPECT_FALSE(write_file_atomic(real_fs, t.ws(), t.path(".codex/hooks.json"), "{}", kSettings).ok());
    EXPECT_FALSE(fs::exists(t.path("elsewhere/hooks.json")));

    fs::create_directories(t.path(".claude/settings.json"));
    EXPECT_FALSE(check_replaceable(real_fs, t.ws(), claude, WriteScope::AgentSettings).ok());
}

}  // namespace
}  // namespace small

namespace small {
namespace {

// `hooks install vscode`: the schema map merged into VS Code's settings in place.
TEST(EditorSchemasMerge, AddsTheSixEntriesKeepingCommentsAndRemovesExactlyThem) {
    const std::string text = "{\n  // mine\n  \"yaml.schemas\": {\n    \"./other.json\": \"x.yml\" // theirs\n  },\n"
                             "  \"editor.tabSize\": 2\n}\n";
    Result<AgentHooksEdit> added = add_editor_schemas(text, editor_schema_entries(), ".vscode/settings.json");
    ASSERT_TRUE(added.ok()) << added.error().describe();
    ASSERT_EQ(added->events.size(), 6u);  // the five artifacts and workspace.small.yml (issue 41)
    EXPECT_NE(added->text.find("// mine\n"), std::string::npos);
    EXPECT_NE(added->text.find("\"./other.json\": \"x.yml\", // theirs\n"), std::string::npos) << added->text;
    EXPECT_NE(added->text.find("    \"./.vscode/small-schemas/plan.schema.json\": [\"**/.small/plan.small.yml\"]"),
              std::string::npos) << added->text;
    EXPECT_NE(added->text.find("\"./.vscode/small-schemas/workspace.schema.json\": [\"**/.small/workspace.small.yml\"]"),
              std::string::npos) << added->text;
    Result<AgentHooksEdit> again = add_editor_schemas(added->text, editor_schema_entries(), ".vscode/settings.json");
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(again->events.empty());
    EXPECT_EQ(again->text, added->text);
    Result<AgentHooksEdit> removed = remove_editor_schemas(added->text, added->events, ".vscode/settings.json");
    ASSERT_TRUE(removed.ok());
    EXPECT_FALSE(removed->empty);
    EXPECT_EQ(removed->text, "{\n  // mine\n  \"yaml.schemas\": {\n    \"./other.json\": \"x.yml\" // theirs\n  },\n"
                             "  \"editor.tabSize\": 2\n}\n");
}

TEST(EditorSchemasMerge, AKeyTheUserMapsIsLeftAloneAndAnEmptyMapGoes) {
    const std::string mine = "{\"yaml.schemas\": {\"./.vscode/small-schemas/plan.schema.json\": \"plan.yml\"}}";
    Result<AgentHooksEdit> added = add_editor_schemas(mine, editor_schema_entries(), "s.json");
    ASSERT_TRUE(added.ok());
    EXPECT_EQ(added->events.size(), 5u);
    EXPECT_NE(added->text.find("\"plan.yml\""), std::string::npos);
    Result<AgentHooksEdit> fresh = add_editor_schemas("", editor_schema_entries(), "s.json");
    ASSERT_TRUE(fresh.ok());
    Result<AgentHooksEdit> gone = remove_editor_schemas(fresh->text, fresh->events, "s.json");
    ASSERT_TRUE(gone.ok());
    EXPECT_TRUE(gone->empty);
    EXPECT_EQ(nlohmann::json::parse(gone->text), nlohmann::json::object());
}

TEST(EditorSchemasMerge, RefusesWhatItCannotEditWithALocation) {
    Result<AgentHooksEdit> bad = add_editor_schemas("{\n  \"a\": 1,,\n}", editor_schema_entries(), "s.json");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().line, 2u);
    Result<AgentHooksEdit> list = add_editor_schemas("{\"yaml.schemas\": []}", editor_schema_entries(), "s.json");
    ASSERT_FALSE(list.ok());
    EXPECT_NE(list.error().message.find("\"yaml.schemas\" is not a JSON object"), std::string::npos);
}

}  // namespace
}  // namespace small

namespace small {
namespace {

TEST(EditorSchemasMerge, AMapTheUserHadStaysWhenItsEntriesGo) {
    const std::string text = "{\n\t\"k\": 1,\n\t\"yaml.schemas\": {} // mine\n}\n";
    Result<AgentHooksEdit> added = add_editor_schemas(text, editor_schema_entries(), "s.json");
    ASSERT_TRUE(added.ok());
    EXPECT_EQ(std::count(added->events.begin(), added->events.end(), "yaml.schemas"), 0);
    Result<AgentHooksEdit> removed = remove_editor_schemas(added->text + "// x\n", added->events, "s.json");
    ASSERT_TRUE(removed.ok());
    EXPECT_NE(removed->text.find("\"yaml.schemas\": {"), std::string::npos) << removed->text;
    EXPECT_NE(removed->text.find("// mine"), std::string::npos) << removed->text;
}

}  // namespace
}  // namespace small
