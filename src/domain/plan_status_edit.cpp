// checkpoint's in-place status edit (see the header).
#include "small/domain/plan_status_edit.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>
#include <span>

#include "small/base/text.hpp"
#include "small/domain/claim_gate.hpp"
#include "small/domain/run_state.hpp"
#include "small/doc/yaml.hpp"
#include "small/model/layout.hpp"
#include "small/model/plan_model.hpp"

namespace small {

namespace {

using Spans = std::vector<std::pair<std::string, SourceRange>>;


std::string encode_spans(const Spans& spans) {
    std::string out;
    for (const auto& [id, at] : spans) {
        append_cache_field(out, id);
        out += ' ' + std::to_string(at.offset) + ' ' + std::to_string(at.length) + '\n';
    }
    return out;
}

bool number(std::string_view text, std::size_t& out) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

std::optional<Spans> decode_spans(std::string_view body) {
    Spans spans;
    const bool ok = scan_cache_lines(body, [&](std::span<const std::string_view> f) {
        SourceRange at;
        if (f.size() != 3 || !number(f[1], at.offset) || !number(f[2], at.length)) return false;
        spans.emplace_back(cache_field_text(f[0]), at);
        return true;
    });
    return ok ? std::optional(std::move(spans)) : std::nullopt;
}

std::string encode_tail(const PlanTail& tail) {
    return std::to_string(tail.from) + " " + std::to_string(tail.insert_at) + "\n";
}

std::optional<PlanTail> decode_tail(std::string_view body) {
    std::optional<PlanTail> tail;
    const bool ok = scan_cache_lines(body, [&](std::span<const std::string_view> f) {
        PlanTail t;
        if (tail || f.size() != 2 || !number(f[0], t.from) || !number(f[1], t.insert_at) || t.from > t.insert_at) {
            return false;
        }
        tail = t;
        return true;
    });
    return ok ? tail : std::nullopt;
}

// The tail once the bytes at `edited` hold `length` bytes instead.
std::optional<PlanTail> shifted_tail(std::optional<PlanTail> tail, SourceRange edited, std::size_t length) {
    if (!tail) return tail;
    for (std::size_t* at : {&tail->from, &tail->insert_at}) {
        if (*at > edited.offset) *at = *at - edited.length + length;
    }
    return tail;
}

const SourceRange* span_of(const Spans& spans, std::string_view id) {
    for (const auto& [task, at] : spans) {
        if (task == id) return &at;
    }
    return nullptr;
}

// Where each task's status sits, as plan_text_with_status finds it (the
// first task of each id, a string status written in place).
Spans spans_of(const Document& plan) {
    Spans out;
    if (plan.source().empty()) return out;
    const ScalarLocator locate(plan.source());
    std::set<std::string_view> seen;
    const NodeRef tasks = plan.root().find("tasks");
    for (std::size_t i = 0; tasks.is_sequence() && i < tasks.size(); ++i) {
        const NodeRef id = tasks.item(i).find("id");
        if (!id.is_string() || !seen.insert(id.as_string()).second) continue;
        const NodeRef status = tasks.item(i).find("status");
        if (!status.is_string()) continue;
        if (const auto at = locate.find(status.mark(), status.as_string())) out.emplace_back(id.as_string(), *at);
    }
    return out;
}

// The spans once `edited` holds `length` bytes instead.
Spans shifted(Spans spans, SourceRange edited, std::size_t length) {
    for (auto& [id, at] : spans) {
        if (at.offset == edited.offset) at.length = length;
        else if (at.offset > edited.offset) at.offset = at.offset - edited.length + length;
    }
    return spans;
}

// A plain or quoted one-line scalar's value (what ScalarLocator finds).
std::string_view unquoted(std::string_view scalar) {
    if (scalar.size() >= 2 && (scalar.front() == '"' || scalar.front() == '\'') && scalar.back() == scalar.front()) {
        return scalar.substr(1, scalar.size() - 2);
    }
    return scalar;
}

void set_status(PlanIndex& index, std::string_view id, TaskStatus status) {
    for (PlanTaskInfo& t : index.tasks) {
        if (t.id == id) t.status = status;
    }
}

// The edit from the caches alone; nullopt when one is missing or stale, or
// the bytes at the cached span do not hold the cached status.
std::optional<PlanStatusEdit> from_caches(const FileSystem& fs, const WorkspacePaths& ws, const std::string& id,
                                          TaskStatus status) {
    const std::string path = ws.artifact_path(ArtifactType::Plan);
    const std::optional<std::string> stamp = fs.version_stamp(path);
    if (!stamp) return std::nullopt;
    const std::vector<std::optional<std::string>> cached =
        read_stamped_caches(fs, ws, *stamp, {kPlanValidName, kPlanSpansName, kPlanTailName});
    if (!cached[0]) return std::nullopt;
    std::optional<Spans> spans = cached[1] ? decode_spans(*cached[1]) : std::nullopt;
    const SourceRange* at = spans ? span_of(*spans, id) : nullptr;
    if (!at) return std::nullopt;
    Result<PlanIndex> index = load_plan_index(fs, ws);
    const PlanTaskInfo* task = index && index->count(id) < 2 ? index->find(id) : nullptr;  // two: from_parse refuses
    Result<std::string> text = task ? fs.read_file(path) : Result<std::string>(Error::internal("unused"));
    if (!text || fs.version_stamp(path) != stamp || at->offset + at->length > text->size()) return std::nullopt;
    if (normal_task_status(unquoted(std::string_view(*text).substr(at->offset, at->length))) != task->status) {
        return std::nullopt;
    }
    PlanStatusEdit edit;
    edit.previous_status = task->status;
    const std::string value = status_text_like(std::string_view(*text).substr(at->offset, at->length), status);
    edit.text = std::move(*text);
    edit.text.replace(at->offset, at->length, value);
    const SourceRange was = *at;  // `at` points into the spans that shifted() changes
    edit.spans = shifted(std::move(*spans), was, value.size());
    edit.tail = shifted_tail(cached[2] ? decode_tail(*cached[2]) : std::nullopt, was, value.size());
    edit.index = std::move(*index);
    set_status(edit.index, id, status);
    edit.old_stamp = *stamp;
    return edit;
}

Result<PlanStatusEdit> from_parse(const FileSystem& fs, const WorkspacePaths& ws, const std::string& id,
                                  TaskStatus status) {
    const std::optional<std::string> stamp = fs.version_stamp(ws.artifact_path(ArtifactType::Plan));
    Result<Document> plan = load_valid_plan_document(fs, ws);
    if (!plan) return plan.error();
    PlanStatusEdit edit;
    edit.index = plan_index_of(*plan);
    const NodeRef node = find_task_node(*plan, id);
    if (!node) return unknown_task_error(edit.index, id, ws);
    if (Status s = refuse_ambiguous_task(fs, ws, edit.index, id); !s) return s.error();
    edit.previous_status = task_status(to_yaml_value(node));
    std::string fallback;
    edit.text = plan_text_with_status(*plan, node, status, &fallback);
    if (!fallback.empty()) edit.warning = ws.artifact_display(ArtifactType::Plan) + fallback;
    Spans spans = spans_of(*plan);
    const SourceRange* at = span_of(spans, id);
    const std::string value = at ? status_text_like(plan->source().substr(at->offset, at->length), status) : "";
    if (at && edit.text.size() == plan->source().size() - at->length + value.size()) {
        const SourceRange was = *at;  // `at` points into the spans that shifted() changes
        edit.spans = shifted(std::move(spans), was, value.size());
        edit.tail = shifted_tail(plan_tail(*plan), was, value.size());
    } else if (Result<Document> again = parse_yaml(edit.text, "plan")) {
        edit.spans = spans_of(*again);  // a line was added (or the file rewritten): rare, so parsed again
        edit.tail = plan_tail(*again);
    }
    set_status(edit.index, id, status);
    edit.outline = outline_plan(plan->root());
    for (PlanTaskOutline& t : *edit.outline) {
        if (t.id == id) t.status = status;
    }
    if (stamp && fs.version_stamp(ws.artifact_path(ArtifactType::Plan)) == stamp) edit.old_stamp = *stamp;
    return edit;
}

// The outline cache body with task `id`'s status field replaced; nullopt
// unless exactly one line has that id. Fields are escaped (no raw space or
// newline inside one), so a line's id is the text between its first and
// second space: found by searching, not by splitting every line.
std::optional<std::string> outline_with_status(const std::string& body, const std::string& id, TaskStatus status) {
    std::string escaped_id, escaped_status;
    append_cache_field(escaped_id, id);
    append_cache_field(escaped_status, status_name(status));
    const std::string needle = " " + escaped_id;
    std::optional<std::size_t> line_start;
    for (std::size_t at = body.find(needle); at != std::string::npos; at = body.find(needle, at + 1)) {
        const std::size_t after = at + needle.size();
        if (after >= body.size() || (body[after] != ' ' && body[after] != '\n')) continue;
        const std::size_t newline = body.rfind('\n', at);
        const std::size_t start = newline == std::string::npos ? 0 : newline + 1;
        if (body.find(' ', start) != at) continue;  // the id is the second field only
        if (line_start) return std::nullopt;
        line_start = start;
    }
    if (!line_start) return std::nullopt;
    const std::size_t status_end = body.find(' ', *line_start);
    std::string out = body;
    out.replace(*line_start, status_end - *line_start, escaped_status);
    return out;
}

}  // namespace

Result<PlanStatusEdit> plan_status_edit(const FileSystem& fs, const WorkspacePaths& ws, const std::string& id,
                                        TaskStatus status) {
    if (std::optional<PlanStatusEdit> cached = from_caches(fs, ws, id, status)) return std::move(*cached);
    return from_parse(fs, ws, id, status);
}

namespace {

// The plan's last two tasks as a plan of their own: "tasks:" and their lines.
struct TailPlan {
    std::string text;
    std::size_t prefix = 0;  // bytes before the tasks' lines: offset m here is from + m - prefix in the file
    Document doc;
};

// Both ends on line starts (or the file's end), the lines' breaks those the
// whole file is written with, the two tasks the index ends with: else the
// cache does not describe this file, and nothing is made of it.
std::optional<TailPlan> tail_plan(const std::string& text, const PlanTail& tail, const PlanIndex& index) {
    const auto line_start = [&](std::size_t at) { return at == 0 || at == text.size() || text[at - 1] == '\n'; };
    if (tail.insert_at > text.size() || index.tasks.size() < 2 || !line_start(tail.from) || !line_start(tail.insert_at)) {
        return std::nullopt;
    }
    const std::string lines = text.substr(tail.from, tail.insert_at - tail.from);
    if (uses_crlf(lines) != uses_crlf(text)) return std::nullopt;
    const std::string head = std::string("tasks:") + (uses_crlf(text) ? "\r\n" : "\n");
    std::string mini = head + lines;
    Result<Document> doc = parse_yaml(mini, "plan");
    if (!doc) return std::nullopt;
    const NodeRef tasks = doc->root().find("tasks");
    const std::size_t n = index.tasks.size();
    if (!tasks.is_sequence() || tasks.size() != 2 || tasks.item(0).find("id").as_string() != index.tasks[n - 2].id ||
        tasks.item(1).find("id").as_string() != index.tasks[n - 1].id) {
        return std::nullopt;  // the cache does not point at the last two tasks
    }
    return TailPlan{std::move(mini), head.size(), std::move(*doc)};
}

}  // namespace

std::optional<PlanAppendEdit> plan_append_edit(const FileSystem& fs, const WorkspacePaths& ws,
                                               const std::vector<std::string>& titles, std::int64_t id_floor) {
    const std::string path = ws.artifact_path(ArtifactType::Plan);
    const std::optional<std::string> stamp = fs.version_stamp(path);
    if (!stamp) return std::nullopt;
    const std::vector<std::optional<std::string>> cached =
        read_stamped_caches(fs, ws, *stamp, {kPlanValidName, kPlanTailName, kPlanSpansName, kPlanOutlineName});
    const std::optional<PlanTail> tail = cached[0] && cached[1] ? decode_tail(*cached[1]) : std::nullopt;
    Result<PlanIndex> index = tail ? load_plan_index(fs, ws) : Result<PlanIndex>(Error::internal("unused"));
    Result<std::string> text = index ? fs.read_file(path) : Result<std::string>(Error::internal("unused"));
    if (!text || fs.version_stamp(path) != stamp) return std::nullopt;
    std::optional<TailPlan> mini = tail_plan(*text, *tail, *index);
    if (!mini) return std::nullopt;

    PlanAppendEdit out;
    out.index = std::move(*index);
    std::vector<std::string> ids = out.index.ids();
    YamlValue target = to_yaml_value(mini->doc.root());
    for (const std::string& title : titles) {
        YamlValue task = YamlValue::object();
        task["id"] = next_task_id(ids, id_floor);
        task["title"] = title;
        set_task_status(task, TaskStatus::Pending);
        ids.push_back(task["id"].get<std::string>());
        out.ids.push_back(ids.back());
        out.index.tasks.push_back({ids.back(), TaskStatus::Pending});
        target["tasks"].push_back(std::move(task));
    }
    PlanTextEdit edit = edit_plan_text(mini->doc, target);
    if (!edit.text || edit.text->compare(0, mini->text.size(), mini->text) != 0 || !edit.parsed) return std::nullopt;
    out.text = text->substr(0, tail->insert_at) + edit.text->substr(mini->text.size()) + text->substr(tail->insert_at);

    const auto in_file = [&](std::size_t m) { return tail->from + m - mini->prefix; };
    const std::optional<PlanTail> new_tail = plan_tail(*edit.parsed);
    if (new_tail) out.caches.push_back({kPlanTailName, encode_tail({in_file(new_tail->from), in_file(new_tail->insert_at)})});
    const auto added = [&](std::string_view id) { return std::find(out.ids.begin(), out.ids.end(), id) != out.ids.end(); };
    if (std::optional<Spans> spans = cached[2] ? decode_spans(*cached[2]) : std::nullopt) {
        for (auto& [id, at] : spans_of(*edit.parsed)) {
            if (added(id)) spans->emplace_back(id, SourceRange{in_file(at.offset), at.length});
        }
        out.caches.push_back({kPlanSpansName, encode_spans(*spans)});
    }
    if (cached[3]) {
        std::vector<PlanTaskOutline> outline = outline_plan(edit.parsed->root());
        std::erase_if(outline, [&](const PlanTaskOutline& t) { return !added(t.id); });
        out.caches.push_back({kPlanOutlineName, *cached[3] + plan_outline_cache(outline).body});
    }
    return out;
}

void remember_plan_append(const FileSystem& fs, const WorkspacePaths& ws, const PlanAppendEdit& edit) {
    remember_valid_plan(fs, ws, edit.index, edit.caches);
}

void remember_plan_write(const FileSystem& fs, const WorkspacePaths& ws, const Document& written) {
    std::vector<StampedCacheBody> more{plan_outline_cache(outline_plan(written.root()))};
    if (const Spans spans = spans_of(written); !spans.empty()) more.push_back({kPlanSpansName, encode_spans(spans)});
    if (const std::optional<PlanTail> tail = plan_tail(written)) more.push_back({kPlanTailName, encode_tail(*tail)});
    remember_valid_plan(fs, ws, plan_index_of(written), std::move(more));
}

void remember_plan_status_edit(const FileSystem& fs, const WorkspacePaths& ws, const PlanStatusEdit& edit,
                               const std::string& id, TaskStatus status) {
    std::vector<StampedCacheBody> more;
    if (!edit.spans.empty()) more.push_back({kPlanSpansName, encode_spans(edit.spans)});
    if (edit.tail) more.push_back({kPlanTailName, encode_tail(*edit.tail)});
    if (edit.outline) {
        more.push_back(plan_outline_cache(*edit.outline));
    } else if (!edit.old_stamp.empty()) {
        if (const std::optional<std::string> outline = read_stamped_cache(fs, ws, kPlanOutlineName, edit.old_stamp)) {
            if (std::optional<std::string> moved = outline_with_status(*outline, id, status)) {
                more.push_back({kPlanOutlineName, std::move(*moved)});
            }
        }
    }
    remember_valid_plan(fs, ws, edit.index, std::move(more));
}

namespace {

// The `small plan` flag that sets `status` (the same for every status).
std::string plan_status_flag(TaskStatus status) {
    switch (status) {
        case TaskStatus::Completed: return "--done";
        case TaskStatus::Cancelled: return "--cancel";
        case TaskStatus::InProgress: return "--in-progress";
        default: return "--" + std::string(status_name(status));
    }
}

}  // namespace

Result<StatusChangeWritten> write_status_change(const FileSystem& fs, const WorkspacePaths& ws,
                                                const MutationSession& session, const StatusChange& req) {
    const std::string& task = req.task;
    const TaskStatus status = req.status;
    // Before the claim and force notes join the caller's: a blank is refused as given.
    if (Status s = refuse_placeholders(req.fields); !s) return s.error();
    Result<EntryTime> when = parse_entry_time(req.at, req.after);
    if (!when) return when.error();
    if (Status s = require_artifact(fs, ws, ArtifactType::Progress); !s) return s.error();
    if (Status s = require_artifact(fs, ws, ArtifactType::Plan, "run `small plan` to create it"); !s) return s.error();
    Result<PlanStatusEdit> edit = plan_status_edit(fs, ws, task, status);
    if (!edit) return edit.error();

    Result<DependencyGate> gate = gate_on_dependencies(fs, ws, task, status, req.force);
    if (!gate) return gate.error();
    const ClaimContext claimer = claim_context(req.agent, ws);
    Result<ClaimGate> claim = gate_on_claim(fs, ws, task, status, claimer, req.force, req.fields.evidence.value_or(""));
    if (!claim) return claim.error();
    TakenClaims undo(fs, ws, claimer);
    undo.add(*claim);

    StatusChangeWritten result;
    if (!gate->warning.empty()) result.warnings.push_back(gate->warning);
    result.previous_status = edit->previous_status;
    if (!edit->warning.empty()) result.warnings.push_back(edit->warning);
    const std::string& text = edit->text;
    Result<RunPin> pin = pin_run(fs, ws, session, text);
    if (!pin) return pin.error();
    if (!pin->warning.empty()) result.warnings.push_back(pin->warning);

    EntryFields fields = req.fields;
    fields.notes = notes_with_claim(notes_with_forced(req.fields.notes, *gate), *claim);
    const YamlValue entry = build_progress_entry(task, status, fields, req.default_evidence, pin->replay_id);
    if (Status v = validate_progress_entry(entry, format_timestamp_utc9(probe_instant(*when)), ws); !v) {
        return v.error();
    }
    Result<std::optional<Instant>> requested = requested_instant(fs, ws, *when);
    if (!requested) return requested.error();

    WorkspaceChange change;
    change.entries.push_back(entry);
    change.first_at = *requested;
    change.files.push_back({ws.artifact_path(ArtifactType::Plan), text});
    if (pin->pinned) change.files.push_back({ws.path_of(kWorkspaceFileName), pin->workspace_text});
    Result<CommittedChange> committed = commit_workspace_change(fs, ws, change);
    if (!committed) {
        undo.keep_if_it_stands(committed.error());
        return committed.error();
    }
    undo.keep();
    if (!committed->was_skipped(ws.artifact_path(ArtifactType::Plan))) {
        remember_plan_status_edit(fs, ws, *edit, task, status);
    } else {
        result.plan_written = false;
        result.warnings.push_back(ws.artifact_display(ArtifactType::Plan) +
                                  " changed while this command ran (a hand edit?), so its status edit was not "
                                  "applied; the progress entry was recorded. Set the status again: small plan " +
                                  plan_status_flag(status) + " " + task);
    }

    result.entry = std::move(committed->appended.front().entry);
    result.timestamp = committed->appended.front().timestamp_text;
    result.replay_id = pin->replay_id;
    result.pinned_run = pin->pinned;
    if (!committed->appended.front().clock_warning.empty()) {
        result.warnings.push_back(committed->appended.front().clock_warning);
    }
    if (std::string w = settle_claim(fs, ws, *claim, claimer); !w.empty()) result.warnings.push_back(w);
    return result;
}

}  // namespace small
