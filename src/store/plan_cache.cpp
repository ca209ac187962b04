// The plan's task index and its stamped cache (see plan_index.hpp).
#include "small/store/plan_cache.hpp"

#include <algorithm>
#include <charconv>

#include "small/model/plan_model.hpp"
#include "small/base/text.hpp"
#include "small/check/invariants.hpp"
#include "small/check/schema.hpp"
#include "small/doc/yaml.hpp"
#include "small/store/atomic_file.hpp"

namespace small {

namespace {

std::optional<std::string> plan_stamp(const FileSystem& fs, const WorkspacePaths& ws) {
    return fs.version_stamp(ws.artifact_path(ArtifactType::Plan));
}

}  // namespace

PlanIndex plan_index_of(const Document& doc) {
    PlanIndex index;
    index.plan_exists = true;
    const NodeRef tasks = doc.root().find("tasks");
    for (std::size_t i = 0; tasks.is_sequence() && i < tasks.size(); ++i) {
        const NodeRef t = tasks.item(i);
        if (!t.find("id").is_string()) continue;
        const NodeRef status = t.find("status");
        index.tasks.push_back({std::string(t.find("id").as_string()),
                               normal_task_status(status.is_string() ? status.as_string() : std::string_view())});
    }
    return index;
}

namespace {

// One task a line, "<status> <id>", each field escaped ('\\' '\n' ' ' as
// "\\\\" "\\n" "\\s"): no JSON parser on the append path.
void append_escaped(std::string& out, std::string_view field) {
    for (char c : field) {
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else if (c == ' ') out += "\\s";
        else out += c;
    }
}

// `field` unescaped into `out` (its capacity reused); false when badly escaped.
bool unescape_into(std::string_view field, std::string& out) {
    out.clear();
    for (std::size_t slash; (slash = field.find('\\')) != std::string_view::npos; field.remove_prefix(slash + 2)) {
        out.append(field.substr(0, slash));
        if (slash + 1 == field.size()) return false;
        const char c = field[slash + 1];
        if (c == '\\') out += '\\';
        else if (c == 'n') out += '\n';
        else if (c == 's') out += ' ';
        else return false;
    }
    out.append(field);
    return true;
}

bool well_escaped(std::string_view field) {
    for (std::size_t slash; (slash = field.find('\\')) != std::string_view::npos; field.remove_prefix(slash + 2)) {
        if (slash + 1 == field.size()) return false;
        const char c = field[slash + 1];
        if (c != '\\' && c != 'n' && c != 's') return false;
    }
    return true;
}

std::string encode_index(const PlanIndex& index) {
    std::string out;
    for (const PlanTaskInfo& t : index.tasks) {
        append_escaped(out, t.status.word());
        out += ' ';
        append_escaped(out, t.id);
        out += '\n';
    }
    return out;
}

// Calls `take` with the fields of each line of `body` as written (escaped,
// checked); false when a line is unterminated, a field is badly escaped or
// `take` refuses it. Nothing is allocated per line.
template <typename Take>
bool for_each_line_raw(std::string_view body, Take take) {
    std::vector<std::string_view> fields;
    while (!body.empty()) {
        const std::size_t eol = body.find('\n');
        if (eol == std::string_view::npos) return false;
        fields.clear();
        std::string_view line = body.substr(0, eol);
        if (line.find('\\') != std::string_view::npos && !well_escaped(line)) return false;
        for (;;) {
            const std::size_t space = line.find(' ');
            fields.push_back(line.substr(0, space));
            if (space == std::string_view::npos) break;
            line.remove_prefix(space + 1);
        }
        if (!take(std::span<const std::string_view>(fields))) return false;
        body.remove_prefix(eol + 1);
    }
    return true;
}

// The same with the fields unescaped (the strings are reused line after line).
template <typename Take>
bool for_each_line_fields(std::string_view body, Take take) {
    std::vector<std::string> fields;
    return for_each_line_raw(body, [&](std::span<const std::string_view> raw) {
        fields.resize(raw.size());
        for (std::size_t i = 0; i < raw.size(); ++i) unescape_into(raw[i], fields[i]);
        return take(fields);
    });
}

std::optional<PlanIndex> decode_index(std::string_view body) {
    PlanIndex index;
    index.plan_exists = true;
    const bool ok = for_each_line_fields(body, [&](std::vector<std::string>& f) {
        if (f.size() != 2) return false;
        index.tasks.push_back({std::move(f[1]), WrittenStatus(std::move(f[0]))});
        return true;
    });
    return ok ? std::optional(std::move(index)) : std::nullopt;
}

// One task a line: "<status> <id> <title> <priority> <dependency>...", escaped as above.
std::string encode_outline(const std::vector<PlanTaskOutline>& tasks) {
    std::string out;
    for (const PlanTaskOutline& t : tasks) {
        append_escaped(out, t.status.word());
        out += ' ';
        append_escaped(out, t.id);
        out += ' ';
        append_escaped(out, t.title);
        out += ' ';
        append_escaped(out, t.priority);
        for (const std::string& d : t.depends_on) {
            out += ' ';
            append_escaped(out, d);
        }
        out += '\n';
    }
    return out;
}

std::optional<std::vector<PlanTaskOutline>> decode_outline(std::string_view body) {
    std::vector<PlanTaskOutline> tasks;
    const bool ok = for_each_line_fields(body, [&](std::vector<std::string>& f) {
        if (f.size() < 4 || f[0].empty()) return false;
        tasks.push_back({std::move(f[1]), WrittenStatus(std::move(f[0])), {f.begin() + 4, f.end()}, std::move(f[2]),
                         std::move(f[3])});
        return true;
    });
    return ok ? std::optional(std::move(tasks)) : std::nullopt;
}

// The lines of task `id` and of the tasks its (first) line depends on, in
// plan order; the other lines are checked but not decoded.
std::optional<std::vector<PlanTaskOutline>> decode_outline_near(std::string_view body, std::string_view id) {
    std::vector<std::pair<std::string_view, std::string_view>> lines;  // id as written, whole line
    const bool ok = for_each_line_raw(body, [&](std::span<const std::string_view> f) {
        if (f.size() < 4 || f[0].empty()) return false;
        lines.emplace_back(f[1], std::string_view(f[0].data(), f.back().data() + f.back().size() - f[0].data() + 1));
        return true;
    });
    if (!ok) return std::nullopt;
    std::string escaped;
    append_escaped(escaped, id);
    std::vector<std::string> wanted{escaped};
    for (const auto& [line_id, line] : lines) {
        if (line_id != escaped) continue;
        for_each_line_raw(line, [&](std::span<const std::string_view> f) {
            wanted.insert(wanted.end(), f.begin() + 4, f.end());
            return true;
        });
        break;
    }
    std::string near;
    for (const auto& [line_id, line] : lines) {
        if (std::find(wanted.begin(), wanted.end(), line_id) != wanted.end()) near += line;
    }
    return decode_outline(near);
}

}  // namespace

void append_cache_field(std::string& out, std::string_view field) { append_escaped(out, field); }

bool decode_cache_lines(std::string_view body, const std::function<bool(std::vector<std::string>&)>& take) {
    return for_each_line_fields(body, take);
}

bool scan_cache_lines(std::string_view body, const std::function<bool(std::span<const std::string_view>)>& take) {
    return for_each_line_raw(body, take);
}

std::string cache_field_text(std::string_view field) {
    std::string out;
    unescape_into(field, out);
    return out;
}

const PlanTaskInfo* PlanIndex::find(std::string_view id) const {
    for (const PlanTaskInfo& t : tasks) {
        if (t.id == id) return &t;
    }
    return nullptr;
}

std::size_t PlanIndex::count(std::string_view id) const {
    return static_cast<std::size_t>(std::count_if(tasks.begin(), tasks.end(), [&](const PlanTaskInfo& t) { return t.id == id; }));
}

std::vector<std::string> PlanIndex::ids() const {
    std::vector<std::string> out;
    out.reserve(tasks.size());
    for (const PlanTaskInfo& t : tasks) out.push_back(t.id);
    return out;
}

namespace {

bool is_plan_section(std::string_view name) {
    return name == kPlanTasksName || name == kPlanValidName || name == kPlanOutlineName || name == kPlanSpansName ||
           name == kPlanTailName || name == kPlanChecklistsName;
}

// A whole-file cache: "<stamp>\n<body>"; its body while the stamp matches.
std::optional<std::string_view> body_after_stamp(std::string_view text, const std::string& stamp) {
    const std::size_t eol = text.find('\n');
    if (eol == std::string_view::npos || text.substr(0, eol) != stamp) return std::nullopt;
    return text.substr(eol + 1);
}

// kPlanCacheName: "<stamp>\n", then per section "<name> <length>\n<body>".
// Decoded as views into the file's text.
using Sections = std::vector<std::pair<std::string_view, std::string_view>>;

std::optional<Sections> decode_sections(std::string_view text, const std::string& stamp) {
    const std::optional<std::string_view> rest = body_after_stamp(text, stamp);
    if (!rest) return std::nullopt;
    Sections out;
    std::string_view body = *rest;
    while (!body.empty()) {
        const std::size_t eol = body.find('\n');
        const std::size_t space = body.substr(0, eol).find(' ');
        if (eol == std::string_view::npos || space == std::string_view::npos) return std::nullopt;
        std::size_t length = 0;
        const std::string_view digits = body.substr(space + 1, eol - space - 1);
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), length);
        if (ec != std::errc() || end != digits.data() + digits.size() || length > body.size() - eol - 1) {
            return std::nullopt;
        }
        out.emplace_back(body.substr(0, space), body.substr(eol + 1, length));
        body.remove_prefix(eol + 1 + length);
    }
    return out;
}

std::string encode_sections(const std::string& stamp, const Sections& sections) {
    std::string out = stamp + "\n";
    for (const auto& [name, body] : sections) {
        out.append(name).append(" ").append(std::to_string(body.size())).append("\n").append(body);
    }
    return out;
}

std::string cache_file(const WorkspacePaths& ws, const char* name) {
    return runtime_path(ws.root, std::string(kCacheDirName) + "/" + name);
}

}  // namespace

std::optional<std::string> read_stamped_cache(const FileSystem& fs, const WorkspacePaths& ws, const char* name,
                                              const std::string& stamp) {
    if (is_plan_section(name)) return std::move(read_stamped_caches(fs, ws, stamp, {name}).front());
    Result<std::string> cached = fs.read_file_no_follow(runtime_path(ws.root, kCacheDirName), name);
    if (!cached) return std::nullopt;
    const std::optional<std::string_view> body = body_after_stamp(*cached, stamp);
    return body ? std::optional<std::string>(*body) : std::nullopt;
}

std::vector<std::optional<std::string>> read_stamped_caches(const FileSystem& fs, const WorkspacePaths& ws,
                                                            const std::string& stamp,
                                                            std::initializer_list<const char*> names) {
    std::vector<std::optional<std::string>> out(names.size());
    Result<std::string> cached = fs.read_file_no_follow(runtime_path(ws.root, kCacheDirName), kPlanCacheName);
    const std::optional<Sections> sections = cached ? decode_sections(*cached, stamp) : std::nullopt;
    if (!sections) return out;
    std::size_t i = 0;
    for (const char* name : names) {
        for (const auto& [n, body] : *sections) {
            if (n == name) out[i] = std::string(body);
        }
        ++i;
    }
    return out;
}

// Best effort: a cache that cannot be written only costs speed. A torn
// cache fails its stamp or length checks (store/atomic_file, Durability::None).
void write_stamped_caches(const FileSystem& fs, const WorkspacePaths& ws, const std::string& stamp,
                          const std::vector<StampedCacheBody>& caches) {
    Sections plan;
    for (const StampedCacheBody& c : caches) {
        if (!is_plan_section(c.name)) {
            (void)write_file_atomic(fs, ws, cache_file(ws, c.name), stamp + "\n" + c.body, kCacheWrite);
        } else {
            plan.emplace_back(c.name, c.body);
        }
    }
    if (plan.empty()) return;
    // Sections of the same stamp that this write does not replace are kept.
    Result<std::string> old = fs.read_file_no_follow(runtime_path(ws.root, kCacheDirName), kPlanCacheName);
    if (old) {
        for (const auto& kept : decode_sections(*old, stamp).value_or(Sections{})) {
            const bool replaced = std::any_of(plan.begin(), plan.end(), [&](const auto& p) { return p.first == kept.first; });
            if (!replaced) plan.push_back(kept);
        }
    }
    (void)write_file_atomic(fs, ws, cache_file(ws, kPlanCacheName), encode_sections(stamp, plan), kCacheWrite);
}

void write_stamped_cache(const FileSystem& fs, const WorkspacePaths& ws, const char* name, const std::string& stamp,
                         const std::string& body) {
    write_stamped_caches(fs, ws, stamp, {{name, body}});
}

Result<PlanIndex> load_plan_index(const FileSystem& fs, const WorkspacePaths& ws) {
    const std::optional<std::string> before = plan_stamp(fs, ws);
    if (!before) return PlanIndex{};
    if (std::optional<std::string> body = read_stamped_cache(fs, ws, kPlanTasksName, *before)) {
        if (std::optional<PlanIndex> index = decode_index(*body)) return *index;
    }
    const std::string display = ws.artifact_display(ArtifactType::Plan);
    Result<Document> doc = load_yaml_file(fs, ws.artifact_path(ArtifactType::Plan), display);
    if (!doc) return doc.error();
    PlanIndex index = plan_index_of(*doc);
    // Cache only what was read from one version of the file (a hand edit takes no lock).
    if (plan_stamp(fs, ws) == before) write_stamped_cache(fs, ws, kPlanTasksName, *before, encode_index(index));
    return index;
}

Result<std::optional<std::vector<PlanTaskOutline>>> load_plan_outline(const FileSystem& fs,
                                                                      const WorkspacePaths& ws) {
    const std::string path = ws.artifact_path(ArtifactType::Plan);
    if (!fs.file_exists(path) && !fs.directory_exists(path)) return std::optional<std::vector<PlanTaskOutline>>();
    const std::optional<std::string> before = fs.version_stamp(path);
    if (before) {
        if (std::optional<std::string> body = read_stamped_cache(fs, ws, kPlanOutlineName, *before)) {
            if (auto tasks = decode_outline(*body)) return std::optional(std::move(*tasks));
        }
    }
    Result<Document> doc = load_yaml_file(fs, path, ws.artifact_display(ArtifactType::Plan));
    if (!doc) return doc.error();
    std::vector<PlanTaskOutline> tasks = outline_plan(doc->root());
    // Cache only what was read from one version of the file (a hand edit takes no lock).
    if (before && fs.version_stamp(path) == before) write_stamped_cache(fs, ws, kPlanOutlineName, *before, encode_outline(tasks));
    return std::optional(std::move(tasks));
}

Result<std::optional<std::vector<PlanTaskOutline>>> load_plan_outline_near(const FileSystem& fs,
                                                                           const WorkspacePaths& ws,
                                                                           std::string_view id) {
    const std::string path = ws.artifact_path(ArtifactType::Plan);
    if (const std::optional<std::string> stamp = fs.version_stamp(path)) {
        if (std::optional<std::string> body = read_stamped_cache(fs, ws, kPlanOutlineName, *stamp)) {
            if (auto tasks = decode_outline_near(*body, id)) return std::optional(std::move(*tasks));
        }
    }
    return load_plan_outline(fs, ws);
}

namespace {

// One task a line: "<id> <number of steps> <step>... <criterion>...", escaped as above.
std::string encode_checklists(NodeRef plan) {
    std::string out;
    const NodeRef tasks = plan.find("tasks");
    for (std::size_t i = 0; tasks.is_sequence() && i < tasks.size(); ++i) {
        const NodeRef t = tasks.item(i);
        if (!t.find("id").is_string()) continue;
        std::vector<std::string_view> items[2];
        for (int k = 0; k < 2; ++k) {
            const NodeRef list = t.find(k == 0 ? "steps" : "acceptance");
            for (std::size_t j = 0; list.is_sequence() && j < list.size(); ++j) {
                if (list.item(j).is_string()) items[k].push_back(list.item(j).as_string());
            }
        }
        append_escaped(out, t.find("id").as_string());
        out += ' ' + std::to_string(items[0].size());
        for (const auto& list : items) {
            for (const std::string_view item : list) {
                out += ' ';
                append_escaped(out, item);
            }
        }
        out += '\n';
    }
    return out;
}

// Task `id`'s checklist from the section (the first line of that id, as a
// scan of the plan finds it); nullopt when the section is malformed.
std::optional<TaskChecklist> decode_checklist(std::string_view body, std::string_view id) {
    std::string escaped;
    append_escaped(escaped, id);
    TaskChecklist out;
    bool found = false;
    const bool ok = for_each_line_raw(body, [&](std::span<const std::string_view> f) {
        std::size_t steps = 0;
        if (f.size() < 2 || std::from_chars(f[1].data(), f[1].data() + f[1].size(), steps).ec != std::errc() ||
            steps > f.size() - 2) {
            return false;
        }
        if (found || f[0] != escaped) return true;
        found = true;
        for (std::size_t i = 2; i < f.size(); ++i) {
            (i < 2 + steps ? out.steps : out.acceptance).push_back(cache_field_text(f[i]));
        }
        return true;
    });
    return ok ? std::optional(std::move(out)) : std::nullopt;
}

}  // namespace

Result<TaskChecklist> load_task_checklist(const FileSystem& fs, const WorkspacePaths& ws, std::string_view id) {
    const std::string path = ws.artifact_path(ArtifactType::Plan);
    if (!fs.file_exists(path)) return TaskChecklist{};
    const std::optional<std::string> before = fs.version_stamp(path);
    if (before) {
        if (std::optional<std::string> body = read_stamped_cache(fs, ws, kPlanChecklistsName, *before)) {
            if (std::optional<TaskChecklist> list = decode_checklist(*body, id)) return std::move(*list);
        }
    }
    Result<Document> doc = load_yaml_file(fs, path, ws.artifact_display(ArtifactType::Plan));
    if (!doc) return doc.error();
    const std::string body = encode_checklists(doc->root());
    // Cache only what was read from one version of the file (a hand edit takes no lock).
    if (before && fs.version_stamp(path) == before) write_stamped_cache(fs, ws, kPlanChecklistsName, *before, body);
    return decode_checklist(body, id).value_or(TaskChecklist{});
}

PlanIndex plan_index_of(const YamlValue& plan) {
    PlanIndex index;
    index.plan_exists = true;
    if (!plan.is_object() || !plan.contains("tasks") || !plan["tasks"].is_array()) return index;
    for (const YamlValue& t : plan["tasks"]) {
        if (!t.is_object() || !t.contains("id") || !t["id"].is_string()) continue;
        index.tasks.push_back({t["id"].get<std::string>(), task_status(t)});
    }
    return index;
}

void remember_plan_index(const FileSystem& fs, const WorkspacePaths& ws, const PlanIndex& index) {
    if (const std::optional<std::string> stamp = plan_stamp(fs, ws)) {
        write_stamped_cache(fs, ws, kPlanTasksName, *stamp, encode_index(index));
    }
}

Error unknown_task_error(const PlanIndex& index, const std::string& typed, const WorkspacePaths& ws, bool for_write) {
    const std::string plan = ws.artifact_display(ArtifactType::Plan);
    const std::string id = visible(typed);  // issue 41: an error keeps its own lines, a value cannot add one
    if (!index.plan_exists) {
        return Error::invalid("task " + id + " cannot be recorded: " + plan +
                              " is missing; create it with `small plan --add \"<title>\"` (nothing written)");
    }
    std::string msg = "task " + id + " is not in " + plan + (for_write ? "; nothing written." : ".");
    const std::vector<std::string> ids = index.ids();
    if (const std::vector<std::string> close = closest_matches(typed, ids); !close.empty()) {
        msg += " Did you mean ";
        for (std::size_t i = 0; i < close.size(); ++i) msg += (i ? i + 1 == close.size() ? " or " : ", " : "") + close[i];
        msg += "?";
    } else if (!ids.empty()) {
        msg += " The plan has ";
        for (std::size_t i = 0; i < ids.size() && i < 5; ++i) msg += (i ? ", " : "") + ids[i];
        msg += ids.size() > 5 ? " and " + std::to_string(ids.size() - 5) + " more." : std::string(".");
    } else {
        msg += " The plan has no tasks.";
    }
    msg += " To add a task: small plan --add \"<title>\"";
    return Error::invalid(msg);
}

Status refuse_ambiguous_task(const FileSystem& fs, const WorkspacePaths& ws, const PlanIndex& index,
                             const std::string& id) {
    const std::size_t n = index.count(id);
    if (n < 2) return ok_status();
    const std::string plan = ws.artifact_display(ArtifactType::Plan);
    std::vector<std::string> lines;
    if (Result<std::string> text = fs.read_file(ws.artifact_path(ArtifactType::Plan))) {
        if (Result<Document> doc = parse_yaml(std::move(*text), plan)) {
            const NodeRef tasks = doc->root().is_mapping() ? doc->root().find("tasks") : NodeRef();
            for (std::size_t i = 0; tasks.is_sequence() && i < tasks.size(); ++i) {
                const NodeRef at = tasks.item(i).is_mapping() ? tasks.item(i).find("id") : NodeRef();
                if (at.is_string() && trim(at.as_string()) == id) lines.push_back(std::to_string(at.mark().line));
            }
        }
    }
    std::string where;
    for (std::size_t i = 0; i < lines.size(); ++i) where += (i ? i + 1 == lines.size() ? " and " : ", " : "") + lines[i];
    return Error::invalid("task id " + id + " names " + std::to_string(n) + " tasks in " + plan +
                          (where.empty() ? "" : " (lines " + where + ")") +
                          ": acting on it would act on one of them only; nothing written. Give one of them a new, "
                          "unused id (check --strict warns: INV-P11)");
}

Status require_plan_task(const PlanIndex& index, const std::string& id, const WorkspacePaths& ws) {
    if (id.rfind("meta/", 0) == 0 || index.find(id)) return ok_status();
    return unknown_task_error(index, id, ws);
}

namespace {

bool plan_known_valid(const FileSystem& fs, const WorkspacePaths& ws) {
    const std::optional<std::string> stamp = plan_stamp(fs, ws);
    return stamp && read_stamped_cache(fs, ws, kPlanValidName, *stamp).has_value();
}

}  // namespace

Result<Document> validate_plan_document(Document doc, const WorkspacePaths& ws) {
    Result<const SchemaSet*> schemas = SchemaSet::embedded_shared();
    if (!schemas) return schemas.error();
    const std::vector<SchemaViolation> violations = (*schemas)->validate("plan", doc);
    if (!violations.empty()) {
        Error e = Error::invalid(violations.front().pointer + ": " + violations.front().message +
                                 " (fix the plan first; nothing written)");
        e.file = ws.artifact_display(ArtifactType::Plan);
        e.line = violations.front().mark.line;
        e.column = violations.front().mark.column;
        return e;
    }
    ArtifactSet set;
    auto& slot = set.artifacts[static_cast<std::size_t>(ArtifactType::Plan)];
    slot = Artifact{ArtifactType::Plan, ws.artifact_path(ArtifactType::Plan), ws.artifact_display(ArtifactType::Plan), std::move(doc)};
    for (const Finding& f : check_invariants(set, InvariantOptions{})) {
        if (f.severity != Severity::Error) continue;
        Error e = Error::invalid(f.message + " [" + f.rule + "] (fix the plan first; nothing written)");
        e.file = ws.artifact_display(ArtifactType::Plan);
        e.line = f.mark.line;
        e.column = f.mark.column;
        return e;
    }
    return std::move(slot->doc);
}

Result<Document> load_valid_plan_document(const FileSystem& fs, const WorkspacePaths& ws) {
    const std::optional<std::string> before = plan_stamp(fs, ws);
    Result<Document> doc = load_yaml_file(fs, ws.artifact_path(ArtifactType::Plan), ws.artifact_display(ArtifactType::Plan));
    if (!doc) return doc.error();
    // Trust the stamp only if the file did not change while it was read (a
    // hand edit takes no lock).
    const bool known_valid = before && plan_stamp(fs, ws) == before && plan_known_valid(fs, ws);
    if (known_valid) return doc;
    return validate_plan_document(std::move(*doc), ws);
}

Result<YamlValue> load_valid_plan(const FileSystem& fs, const WorkspacePaths& ws) {
    Result<Document> doc = load_valid_plan_document(fs, ws);
    if (!doc) return doc.error();
    return to_yaml_value(doc->root());
}

void remember_valid_plan(const FileSystem& fs, const WorkspacePaths& ws, const PlanIndex& index, std::vector<StampedCacheBody> more) {
    // A shortcut only: a lost or stale stamp just means the plan is validated again.
    const std::optional<std::string> stamp = plan_stamp(fs, ws);
    if (!stamp) return;
    more.push_back({kPlanValidName, ""});
    more.push_back({kPlanTasksName, encode_index(index)});
    write_stamped_caches(fs, ws, *stamp, more);
}

StampedCacheBody plan_outline_cache(const std::vector<PlanTaskOutline>& outline) {
    return {kPlanOutlineName, encode_outline(outline)};
}

}  // namespace small
