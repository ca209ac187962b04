// The resume primer's layout under a byte budget (see the header).
#include "small/report/status_brief.hpp"

#include <algorithm>
#include <vector>

#include "small/base/text.hpp"

namespace small {

namespace {

constexpr std::string_view kTitle = "SMALL resume primer (small status --brief)";

struct Section {
    std::string name;
    std::string header;
    std::vector<std::string> items;
};

std::string line(std::string_view text) { return one_line(text, kBriefLineBytes); }

std::string item_line(std::string_view text) { return "  - " + one_line(text, kBriefLineBytes - 4); }

std::string task_text(const BriefTask& t) {
    std::string out = t.id.empty() ? "(no id)" : t.id;
    if (!t.title.empty()) out += " " + t.title;
    return out;
}

// A blocked task with its reason (D18: the reason travels with it).
std::string blocked_text(const BriefTask& t) { return task_text(t) + " — " + t.note; }

std::string entry_text(const BriefEntry& e) {
    // "2026-11-23T10:00:00.123Z" -> "2026-11-23 10:00"
    std::string when = e.timestamp.size() >= 16 ? e.timestamp.substr(0, 10) + " " + e.timestamp.substr(11, 5)
                                                : e.timestamp;
    std::string out = when + " " + e.task_id + " " + e.status;
    return e.text.empty() ? out : out + ": " + e.text;
}

// "Constraints: a, b …(+k more)" within one line, and how many ids it shows.
std::pair<std::string, std::size_t> constraints_line(const std::vector<std::string>& ids) {
    std::string out = "Constraints:";
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const std::string more = " …(+" + std::to_string(ids.size() - i) + " more)";
        const std::string next = (i ? ", " : " ") + one_line(ids[i], kBriefLineBytes);
        const bool last = i + 1 == ids.size();
        if (out.size() + next.size() + (last ? 0 : more.size()) > kBriefLineBytes) return {out + more, i};
        out += next;
    }
    return {out, ids.size()};
}

std::vector<Section> sections_of(const ResumeBrief& b) {
    std::vector<Section> out;
    if (b.has_workspace) {
        out.push_back({"intent", "Intent: " + (b.intent.empty() ? "(none: write it in .small/intent.small.yml)" : b.intent), {}});
        std::string run = "Run: " + (b.run_id.empty() ? std::string("no run id yet") : b.run_id.substr(0, 12));
        run += " | tasks " + std::to_string(b.completed_tasks) + "/" + std::to_string(b.total_tasks) + " completed";
        out.push_back({"run", run, {}});
        Section current{"current", "Current: none", {}};
        if (b.current) {
            current.header = "Current: " + task_text(*b.current) + " [" + b.current->status.word() + "]";
            if (!b.current->note.empty()) current.header += " — " + b.current->note;
            for (const std::string& step : b.current->steps) current.items.push_back(item_line("step: " + step));
            for (const std::string& done : b.current->acceptance) current.items.push_back(item_line("done when: " + done));
        }
        out.push_back(std::move(current));
    }
    const auto list = [&](const char* name, std::string header, const auto& items, auto text_of) {
        Section s{name, std::move(header), {}};
        for (const auto& item : items) s.items.push_back(item_line(text_of(item)));
        if (!s.items.empty() || name == std::string("handoff")) out.push_back(std::move(s));
    };
    list("claims", "Claims:", b.claims, [](const std::string& s) { return s; });
    list("next", "Next:", b.next, task_text);
    list("blocked", "Blocked:", b.blocked, blocked_text);
    if (!b.handoff_summary.empty() || !b.handoff_next_steps.empty()) {
        const std::string summary = b.handoff_summary.empty() ? std::string("(no summary)") : b.handoff_summary;
        // A stale handoff's summary is out of date and its steps are replaced by the ones computed now.
        const std::string header = !b.handoff_stale.empty() && b.handoff_next_steps.empty()
                                       ? "Handoff: stale — " + b.handoff_stale
                                   : b.handoff_stale.empty() ? "Handoff: " + summary
                                                             : "Handoff: stale — " + b.handoff_stale + "; steps computed now:";
        list("handoff", header, b.handoff_next_steps, [](const std::string& s) { return s; });
    }
    list("recent", "Recent:", b.recent, entry_text);
    if (!b.constraint_ids.empty()) out.push_back({"constraints", constraints_line(b.constraint_ids).first, {}});
    list("problems", "Problems:", b.problems, [](const std::string& s) { return s; });
    for (Section& s : out) s.header = line(s.header);
    return out;
}

std::string more_marker(std::size_t k, const char* what) {
    return "  …(+" + std::to_string(k) + " more" + what + ")\n";
}

}  // namespace

FittedBrief fit_brief(const ResumeBrief& b, std::size_t max_bytes) {
    return fit_brief(b, max_bytes, {"Run next: " + b.next_command});
}

FittedBrief fit_brief(const ResumeBrief& b, std::size_t max_bytes, const std::vector<std::string>& last_lines) {
    const std::size_t budget = std::max(max_bytes, kMinBriefBytes);
    const std::vector<Section> sections = sections_of(b);
    const std::string marker = more_marker(sections.size(), " sections");
    std::string tail;
    for (const std::string& l : last_lines) {
        const std::string next = line(l) + "\n";
        if (!tail.empty() && kTitle.size() + 1 + marker.size() + tail.size() + next.size() > budget) break;
        tail += next;
    }
    // The tail and a sections marker are always paid for, so a cut anywhere still fits.
    const std::size_t reserve = tail.size() + marker.size();
    FittedBrief fit;
    fit.text = std::string(kTitle) + "\n";
    for (std::size_t si = 0; si < sections.size(); ++si) {
        const Section& s = sections[si];
        const std::size_t n = s.items.size();
        const std::size_t header = s.header.size() + 1 + (n ? more_marker(n, "").size() : 0);
        if (fit.text.size() + header + reserve > budget) {
            for (std::size_t k = si; k < sections.size(); ++k) fit.omitted_sections.push_back(sections[k].name);
            fit.text += more_marker(sections.size() - si, " sections").substr(2);
            break;
        }
        fit.text += s.header + "\n";
        std::size_t shown = 0;
        for (; shown < n; ++shown) {
            const std::size_t rest = n - shown - 1;
            const std::size_t need = s.items[shown].size() + 1 + (rest ? more_marker(rest, "").size() : 0);
            if (fit.text.size() + need + reserve > budget) break;
            fit.text += s.items[shown] + "\n";
        }
        if (shown < n) fit.text += more_marker(n - shown, "");
        if (n || s.name == "handoff") fit.items[s.name] = {shown, n - shown};
    }
    fit.text += tail;
    return fit;
}

nlohmann::json next_action_json(const NextAction& a) {
    using nlohmann::json;
    if (a.tool.empty()) {
        return json{{"tool", nullptr}, {"arguments", json::object()}, {"note", line(a.note)},
                    {"stop", a.stop.empty() ? json() : json(line(a.stop))}};
    }
    json args = json::object();
    for (const NextAction::Arg& arg : a.args) args[arg.name] = arg.value.empty() ? json(true) : json(line(arg.value));
    json j{{"tool", a.tool}, {"arguments", std::move(args)}};
    json placeholders = json::array();
    for (const NextAction::Arg& arg : a.args) {
        if (arg.placeholder) placeholders.push_back(arg.name);
    }
    if (!placeholders.empty()) j["placeholders"] = std::move(placeholders);
    return j;
}

// Every string of the JSON is the value as the text shows it (one line,
// valid UTF-8, at most kBriefLineBytes), so the document stays bounded too.
nlohmann::json brief_json(const ResumeBrief& b, const FittedBrief& fit, std::size_t max_bytes) {
    using nlohmann::json;
    const auto omitted = [&](const char* name) {
        return std::find(fit.omitted_sections.begin(), fit.omitted_sections.end(), name) != fit.omitted_sections.end();
    };
    const auto shown = [&](const char* name) {
        const auto it = fit.items.find(name);
        return it == fit.items.end() ? std::size_t{0} : it->second.first;
    };
    const auto task = [](const BriefTask& t) {
        json j{{"id", line(t.id)}, {"title", line(t.title)}, {"status", line(t.status.word())}};
        if (!t.note.empty()) j["note"] = line(t.note);
        return j;
    };
    const auto text = [](const std::string& s) { return json(line(s)); };
    json left_out = json::object();
    for (const auto& [name, counts] : fit.items) {
        if (counts.second) left_out[name] = counts.second;
    }
    json out = {{"max_bytes", std::max(max_bytes, kMinBriefBytes)}, {"bytes", fit.text.size()}, {"text", fit.text}};
    if (b.has_workspace && !omitted("intent")) out["intent"] = line(b.intent);
    if (b.has_workspace && !omitted("run")) {
        out["run_id"] = line(b.run_id);
        out["tasks"] = {{"total", b.total_tasks}, {"completed", b.completed_tasks}};
    }
    if (b.has_workspace && !omitted("current")) {
        out["current_task"] = b.current ? task(*b.current) : json();
        if (b.current) {  // the steps and criteria the text shows, in its order
            std::size_t left = shown("current");
            for (const auto& [key, list] : {std::pair{"steps", &b.current->steps}, std::pair{"acceptance", &b.current->acceptance}}) {
                json arr = json::array();
                for (std::size_t i = 0; i < list->size() && left > 0; ++i, --left) arr.push_back(line((*list)[i]));
                out["current_task"][key] = std::move(arr);
            }
        }
    }
    const auto items = [&](const char* name, const auto& list, auto to_json) {
        json arr = json::array();
        for (std::size_t i = 0; i < shown(name); ++i) arr.push_back(to_json(list[i]));
        return arr;
    };
    const auto put = [&](const char* key, const char* name, const auto& list, auto to_json) {
        if (!omitted(name) && fit.items.count(name)) out[key] = items(name, list, to_json);
    };
    put("claims", "claims", b.claims, text);
    put("next_tasks", "next", b.next, task);
    put("blocked", "blocked", b.blocked, task);
    if (!omitted("handoff") && fit.items.count("handoff")) {
        out["handoff"] = {{"summary", line(b.handoff_summary)},
                          {"next_steps", items("handoff", b.handoff_next_steps, text)},
                          {"stale", b.handoff_stale.empty() ? json() : json(line(b.handoff_stale))}};
    }
    put("recent", "recent", b.recent, [](const BriefEntry& e) {
        return json{{"timestamp", line(e.timestamp)}, {"task_id", line(e.task_id)}, {"status", line(e.status)},
                    {"text", line(e.text)}};
    });
    if (!omitted("constraints") && !b.constraint_ids.empty()) {
        const std::size_t n = constraints_line(b.constraint_ids).second;
        json ids = json::array();
        for (std::size_t i = 0; i < n; ++i) ids.push_back(line(b.constraint_ids[i]));
        out["constraints"] = std::move(ids);
        if (n < b.constraint_ids.size()) left_out["constraints"] = b.constraint_ids.size() - n;
    }
    put("problems", "problems", b.problems, text);
    out["next_command"] = line(b.next_command);
    out["stop"] = b.next_action.stop.empty() ? json() : json(line(b.next_action.stop));
    out["next_action"] = next_action_json(b.next_action);
    out["omitted"] = {{"items", left_out}, {"sections", fit.omitted_sections}};
    return out;
}

}  // namespace small
