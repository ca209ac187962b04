// Secret detection heuristics (D9).
// Values are scanned in one pass: only word starts are tried against the
// known token prefixes, so long prose costs little.
#include "small/check/secrets.hpp"
#include "small/base/text.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace small {
namespace {

// ---- character classes (ASCII only: secrets are ASCII) ----

bool is_base64(char c) { return is_ascii_alnum(c) || c == '+' || c == '/'; }
bool is_base64url(char c) { return is_ascii_alnum(c) || c == '_' || c == '-'; }

enum class Charset { UpperAlnum, Alnum, AlnumUnderscore, AlnumDash, Base64Url, BearerToken };

bool in_charset(Charset set, char c) {
    switch (set) {
        case Charset::UpperAlnum: return is_ascii_upper(c) || is_ascii_digit(c);
        case Charset::Alnum: return is_ascii_alnum(c);
        case Charset::AlnumUnderscore: return is_ascii_alnum(c) || c == '_';
        case Charset::AlnumDash: return is_ascii_alnum(c) || c == '-';
        case Charset::Base64Url: return is_base64url(c);
        case Charset::BearerToken:
            return is_ascii_alnum(c) || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' ||
                   c == '=' || c == '-';
    }
    return false;
}

std::size_t run_length(std::string_view text, std::size_t pos, Charset set) {
    std::size_t n = 0;
    while (pos + n < text.size() && in_charset(set, text[pos + n])) ++n;
    return n;
}

bool contains_digit(std::string_view s) {
    for (char c : s)
        if (is_ascii_digit(c)) return true;
    return false;
}

bool starts_with_ignoring_case(std::string_view text, std::size_t pos, std::string_view word) {
    if (text.size() - pos < word.size()) return false;
    for (std::size_t i = 0; i < word.size(); ++i)
        if (ascii_lower(text[pos + i]) != word[i]) return false;
    return true;
}

// ---- key names ----

// Most specific first, so the reason names the best match.
constexpr std::array<std::string_view, 8> kSecretKeyWords = {
    "access_token", "private_key", "api_key", "apikey", "password", "passwd", "secret", "token"};

// ---- token shapes: a fixed prefix followed by a body of one charset ----

struct PrefixedToken {
    std::string_view prefix;
    Charset body;
    std::size_t min_body;
    bool exact;        // the body is exactly min_body characters
    bool needs_digit;  // cuts false positives for short, word-like prefixes
    const char* reason;
};

constexpr const char* kAws = "value contains an AWS access key id";
constexpr const char* kGitHub = "value contains a GitHub token";
constexpr const char* kGitLab = "value contains a GitLab personal access token";
constexpr const char* kSlack = "value contains a Slack token";
constexpr const char* kApiKey = "value contains an API secret key (sk-/sk_live_/rk_live_)";
constexpr const char* kGoogle = "value contains a Google API key";

constexpr std::array<PrefixedToken, 17> kPrefixedTokens = {{
    {"AKIA", Charset::UpperAlnum, 16, true, false, kAws},
    {"ASIA", Charset::UpperAlnum, 16, true, false, kAws},
    {"ghp_", Charset::Alnum, 36, false, false, kGitHub},
    {"gho_", Charset::Alnum, 36, false, false, kGitHub},
    {"ghu_", Charset::Alnum, 36, false, false, kGitHub},
    {"ghs_", Charset::Alnum, 36, false, false, kGitHub},
    {"ghr_", Charset::Alnum, 36, false, false, kGitHub},
    {"github_pat_", Charset::AlnumUnderscore, 22, false, false, kGitHub},
    {"glpat-", Charset::Base64Url, 20, false, false, kGitLab},
    {"xoxb-", Charset::AlnumDash, 10, false, false, kSlack},
    {"xoxp-", Charset::AlnumDash, 10, false, false, kSlack},
    {"xoxa-", Charset::AlnumDash, 10, false, false, kSlack},
    {"xoxr-", Charset::AlnumDash, 10, false, false, kSlack},
    {"xoxs-", Charset::AlnumDash, 10, false, false, kSlack},
    // "sk-" alone also starts kebab-case words; real keys always carry digits.
    {"sk-", Charset::Base64Url, 20, false, true, kApiKey},
    {"sk_live_", Charset::Base64Url, 20, false, false, kApiKey},
    {"rk_live_", Charset::Base64Url, 20, false, false, kApiKey},
}};

constexpr PrefixedToken kGoogleKey{"AIza", Charset::Base64Url, 35, false, false, kGoogle};

bool matches_prefixed(std::string_view text, std::size_t pos, const PrefixedToken& token) {
    if (text.compare(pos, token.prefix.size(), token.prefix) != 0) return false;
    const std::size_t body_start = pos + token.prefix.size();
    const std::size_t body = run_length(text, body_start, token.body);
    if (body < token.min_body || (token.exact && body != token.min_body)) return false;
    const std::size_t end = body_start + body;
    if (end < text.size() && is_ascii_alnum(text[end])) return false;  // e.g. AKIA… + lower-case
    return !token.needs_digit || contains_digit(text.substr(body_start, body));
}

const char* prefixed_token_at(std::string_view text, std::size_t pos) {
    for (const PrefixedToken& token : kPrefixedTokens)
        if (token.prefix[0] == text[pos] && matches_prefixed(text, pos, token)) return token.reason;
    if (matches_prefixed(text, pos, kGoogleKey)) return kGoogleKey.reason;
    return nullptr;
}

// "-----BEGIN <label>PRIVATE KEY-----" (RSA, EC, DSA, OPENSSH, ENCRYPTED, or
// "PGP PRIVATE KEY BLOCK").
bool private_key_block_at(std::string_view text, std::size_t pos) {
    constexpr std::string_view kBegin = "-----BEGIN ";
    if (text.compare(pos, kBegin.size(), kBegin) != 0) return false;
    const std::size_t label_start = pos + kBegin.size();
    // Bounded look-ahead keeps the scan linear on text full of "-----BEGIN ".
    const std::string_view window = text.substr(label_start, 45);
    const std::size_t label_end = window.find("-----");
    if (label_end == std::string_view::npos) return false;
    const std::string_view label = window.substr(0, label_end);
    return label.ends_with("PRIVATE KEY") || label.ends_with("PRIVATE KEY BLOCK");
}

// "Bearer <token>" with a 20+ character token that carries a digit (prose
// like "the bearer of this note" never does).
bool bearer_token_at(std::string_view text, std::size_t pos) {
    if (!starts_with_ignoring_case(text, pos, "bearer")) return false;
    std::size_t i = pos + 6;
    const std::size_t blanks_start = i;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i == blanks_start) return false;
    const std::size_t len = run_length(text, i, Charset::BearerToken);
    return len >= 20 && contains_digit(text.substr(i, len));
}

// Three base64url segments of 10+ characters, the header starting "eyJ" ('{"').
bool jwt_at(std::string_view text, std::size_t pos) {
    if (text.compare(pos, 3, "eyJ") != 0) return false;
    std::size_t i = pos;
    for (int segment = 0; segment < 3; ++segment) {
        if (segment > 0) {
            if (i >= text.size() || text[i] != '.') return false;
            ++i;
        }
        const std::size_t len = run_length(text, i, Charset::Base64Url);
        if (len < 10) return false;
        i += len;
    }
    return true;
}

// "password=hunter2hunter2", "DB_PASSWORD=…", "--api-key"-less forms too:
// a secret key word, '=' and a literal of 8+ characters. Placeholders
// ($VAR, ${VAR}, <…>, {{…}}, %s, ***) are not literals.
bool credential_assignment_at(std::string_view text, std::size_t pos) {
    for (std::string_view word : kSecretKeyWords) {
        if (!starts_with_ignoring_case(text, pos, word)) continue;
        std::size_t i = pos + word.size();
        if (i >= text.size() || text[i] != '=') continue;
        ++i;
        if (i < text.size() && (text[i] == '"' || text[i] == '\'')) ++i;
        if (i >= text.size() || std::string_view("$<{%*").find(text[i]) != std::string_view::npos) return false;
        std::size_t len = 0;
        while (i + len < text.size() && !std::isspace(static_cast<unsigned char>(text[i + len])) &&
               text[i + len] != '"' && text[i + len] != '\'' && text[i + len] != '&' && text[i + len] != ';')
            ++len;
        return len >= 8;
    }
    return false;
}

const char* token_shape_at(std::string_view text, std::size_t pos) {
    if (const char* reason = prefixed_token_at(text, pos)) return reason;
    if (private_key_block_at(text, pos)) return "value contains a private key block";
    if (bearer_token_at(text, pos)) return "value contains a bearer token";
    if (jwt_at(text, pos)) return "value contains a JSON Web Token";
    return nullptr;
}

// Characters that can begin any recognised shape; everything else is skipped.
constexpr std::array<bool, 256> kMayStartShape = [] {
    std::array<bool, 256> table{};
    for (const unsigned char c : {'A', 'g', 'x', 's', 'r', '-', 'b', 'B', 'e'}) table[c] = true;
    return table;
}();

const char* find_token_shape(std::string_view text) {
    for (std::size_t pos = 0; pos < text.size(); ++pos) {
        if (!kMayStartShape[static_cast<unsigned char>(text[pos])]) continue;
        if (pos > 0 && is_ascii_alnum(text[pos - 1])) continue;  // only at word starts
        if (const char* reason = token_shape_at(text, pos)) return reason;
    }
    // Less specific, so only when no known token names the secret better;
    // an assignment needs its '='.
    if (text.find('=') == std::string_view::npos) return nullptr;
    for (std::size_t pos = 0; pos < text.size(); ++pos) {
        if (pos > 0 && is_ascii_alnum(text[pos - 1])) continue;
        if (credential_assignment_at(text, pos)) return "value assigns a literal to a secret-named variable";
    }
    return nullptr;
}

// Characters of the tokens, keys and base64 words the rules look for.
constexpr std::array<bool, 256> kTokenChar = [] {
    std::array<bool, 256> table{};
    for (int c = 0; c < 256; ++c) {
        table[c] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                   c == '-' || c == '+' || c == '/' || c == '.' || c == '~' || c == '=';
    }
    return table;
}();
constexpr std::size_t kShortestRun = 10;          // "-----BEGIN"
constexpr std::size_t kShortestPrefixedRun = 15;  // a prefixed token: "xoxb-" and ten
// The shortest shape (a Slack token) has 15 characters; most values are shorter.
constexpr std::size_t kShortestValue = 15;

// ---- the reference's whole-value rule: ^[A-Za-z0-9+/]{32,}={0,2}$ ----

bool is_base64_word(std::string_view s) {
    std::size_t padding = 0;
    while (padding < 2 && padding < s.size() && s[s.size() - 1 - padding] == '=') ++padding;
    const std::string_view body = s.substr(0, s.size() - padding);
    if (body.size() < 32) return false;
    for (char c : body)
        if (!is_base64(c)) return false;
    return true;
}

// Narrows the reference rule to random-looking text. Hex (commit ids,
// sha256 digests, replay ids) is not a secret (D9); a random base64 secret
// almost always mixes letters and digits, while long words do not; and a
// slash-separated value must mix cases too, or it is most likely a path.
bool looks_random(std::string_view s) {
    bool hex_only = true, digit = false, upper = false, lower = false, slash = false;
    for (char c : s) {
        hex_only = hex_only && is_ascii_hex(c);
        digit = digit || is_ascii_digit(c);
        upper = upper || is_ascii_upper(c);
        lower = lower || is_ascii_lower(c);
        slash = slash || c == '/';
    }
    if (hex_only || !digit || !(upper || lower)) return false;
    return !slash || (upper && lower);
}

bool looks_like_encoded_secret(std::string_view value) {
    const std::string_view word = trim(value);
    if (!is_base64_word(word)) return false;
    return looks_random(word.substr(0, word.find('=')));
}

// Whether `value` has a run of `length` or more token characters. Such a run
// covers one of every `length` positions: only those are looked at, and the
// run around them measured.
bool has_token_run(std::string_view value, std::size_t length) {
    const auto token = [&](std::size_t i) { return kTokenChar[static_cast<unsigned char>(value[i])]; };
    for (std::size_t p = length - 1; p < value.size(); p += length) {
        if (!token(p)) continue;
        std::size_t begin = p, end = p + 1;
        while (begin > 0 && end - begin < length && token(begin - 1)) --begin;
        while (end < value.size() && end - begin < length && token(end)) ++end;
        if (end - begin >= length) return true;
    }
    return false;
}

}  // namespace

std::optional<std::string> secret_key_reason(std::string_view key) {
    std::string lowered(key);
    for (char& c : lowered) c = ascii_lower(c);
    for (std::string_view word : kSecretKeyWords)
        if (lowered.find(word) != std::string::npos)
            return "key name contains \"" + std::string(word) + "\"";
    return std::nullopt;
}

// What each rule needs: the assignment a '='; a prefixed token a run of 15
// or more token characters (xoxb- and ten), a bearer token 20, a JWT 32
// (three segments of ten joined by '.'), a base64 word 32; a private key
// block "-----" and the run "-----BEGIN". Prose and timestamps have none.
bool may_hold_secret(std::string_view value) {
    if (value.find('=') != std::string_view::npos || has_token_run(value, kShortestPrefixedRun)) return true;
    return value.find("-----") != std::string_view::npos && has_token_run(value, kShortestRun);
}

std::optional<std::string> secret_value_reason(std::string_view value) {
    if (value.size() < kShortestValue || !may_hold_secret(value)) return std::nullopt;
    return secret_value_reason_unfiltered(value);
}

std::optional<std::string> secret_value_reason_unfiltered(std::string_view value) {
    if (value.size() < kShortestValue) return std::nullopt;
    if (const char* reason = find_token_shape(value)) return std::string(reason);
    if (looks_like_encoded_secret(value))
        return std::string("value looks like an encoded secret (32+ base64 characters)");
    return std::nullopt;
}

std::optional<std::string> secret_commit_reason(std::string_view value) {
    if (auto reason = secret_value_reason(value)) return reason;
    const std::string_view word = trim(value);
    const bool hex = std::all_of(word.begin(), word.end(), is_ascii_hex);
    if (hex && word.size() > 40) {
        return std::string("value looks like an encoded secret (32+ base64 characters; a commit hash has 7-40 hex digits)");
    }
    return std::nullopt;
}

}  // namespace small
