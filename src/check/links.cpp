// Insecure link detection. Unlike the
// reference, the scheme is matched in any case and the loopback allowance
// compares the whole host, not a prefix of the URL.
#include "small/check/links.hpp"

#include <algorithm>
#include <array>

#include "small/base/text.hpp"

namespace small {
namespace {

constexpr std::string_view kScheme = "http://";


bool equals_ignoring_case(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
    return true;
}

std::size_t find_scheme(std::string_view text, std::size_t from) {
    // "://" is rare in prose and found fast; then look for "http" before it.
    constexpr std::size_t kName = 4;  // "http"
    for (std::size_t c = text.find("://", std::min(text.size(), from + kName)); c != std::string_view::npos;
         c = text.find("://", c + 1)) {
        if (equals_ignoring_case(text.substr(c - kName, kName), kScheme.substr(0, kName))) return c - kName;
    }
    return std::string_view::npos;
}

bool ends_url(char c) {
    switch (c) {
        case ' ': case '\t': case '\r': case '\n': case '"': case '\'':
        case '<': case '>': case ')': case '`':
            return true;
        default:
            return false;
    }
}

// End of the URL starting at `start`. A ']' closes an IPv6 literal such as
// [::1] when one is open, and otherwise ends the URL (markdown "[http://x]").
std::size_t url_end(std::string_view text, std::size_t start) {
    bool in_brackets = false;
    std::size_t i = start;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (ends_url(c)) break;
        if (c == '[') in_brackets = true;
        if (c == ']') {
            if (!in_brackets) break;
            in_brackets = false;
        }
    }
    return i;
}

// Sentence punctuation after a URL in prose ("see http://localhost.") is not
// part of it.
std::string_view drop_trailing_punctuation(std::string_view url) {
    while (!url.empty() && std::string_view(".,;:!?").find(url.back()) != std::string_view::npos)
        url.remove_suffix(1);
    return url;
}

// The host of "http://[userinfo@]host[:port][/path…]", with brackets kept for
// IPv6 literals.
std::string_view host_of(std::string_view url) {
    std::string_view authority = url.substr(kScheme.size());
    authority = authority.substr(0, authority.find_first_of("/?#"));
    if (const auto at = authority.rfind('@'); at != std::string_view::npos)
        authority.remove_prefix(at + 1);
    if (!authority.starts_with('[')) return authority.substr(0, authority.find(':'));
    // An IPv6 literal may only be followed by a port; "[::1].evil" stays whole.
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return authority;
    const std::string_view after = authority.substr(close + 1);
    return after.empty() || after.front() == ':' ? authority.substr(0, close + 1) : authority;
}

bool is_loopback_host(std::string_view host) {
    constexpr std::array<std::string_view, 4> kLoopback = {"localhost", "127.0.0.1", "0.0.0.0",
                                                           "[::1]"};
    for (std::string_view allowed : kLoopback)
        if (equals_ignoring_case(host, allowed)) return true;
    return false;
}

// The reference ignores a bare scheme in prose ("http:// links are bad") and
// "http:///…".
bool is_bare_scheme(std::string_view url) {
    return url.size() <= kScheme.size() || url[kScheme.size()] == '/';
}

}  // namespace

std::optional<std::string> find_insecure_link(std::string_view text, bool allow_loopback) {
    std::size_t pos = find_scheme(text, 0);
    while (pos != std::string_view::npos) {
        const std::size_t end = url_end(text, pos + kScheme.size());
        const std::string_view url = drop_trailing_punctuation(text.substr(pos, end - pos));
        const bool allowed =
            is_bare_scheme(url) || (allow_loopback && is_loopback_host(host_of(url)));
        if (!allowed) return std::string(url);
        pos = find_scheme(text, pos + kScheme.size());
    }
    return std::nullopt;
}

}  // namespace small

namespace small {

namespace {


std::optional<std::string> authority_problem(std::string_view scheme, std::string_view authority) {
    const size_t at = authority.rfind('@');
    std::string_view host = at == std::string_view::npos ? authority : authority.substr(at + 1);
    if (!host.empty() && host.front() == '[') {
        const size_t close = host.find(']');
        if (close == std::string_view::npos) return "an IPv6 host without its closing ']'";
        host = host.substr(close + 1);
        if (!host.empty() && host.front() != ':') return "text after the IPv6 host";
        if (!host.empty()) host.remove_prefix(1);
        for (char c : host) {
            if (!is_ascii_digit(c)) return "a port that is not a number";
        }
        return std::nullopt;
    }
    const size_t colon = host.find(':');
    if (colon != std::string_view::npos) {
        for (char c : host.substr(colon + 1)) {
            if (!is_ascii_digit(c)) return "a port that is not a number";
        }
        host = host.substr(0, colon);
    }
    if (host.empty() && scheme != "file") return "no host after '//'";
    return std::nullopt;
}

}  // namespace

std::optional<std::string> link_syntax_problem(std::string_view url) {
    if (url.empty()) return "it is empty";
    size_t i = 0;
    if (!is_ascii_alpha(url[0])) return "it does not start with a scheme (e.g. https:)";
    while (i < url.size() && (is_ascii_alpha(url[i]) || is_ascii_digit(url[i]) || url[i] == '+' || url[i] == '-' || url[i] == '.')) ++i;
    if (i == url.size() || url[i] != ':') return "it does not start with a scheme (e.g. https:)";
    std::string scheme;
    for (char c : url.substr(0, i)) scheme += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    for (size_t k = i + 1; k < url.size(); ++k) {
        const auto c = static_cast<unsigned char>(url[k]);
        if (c <= 0x20 || c == 0x7f) return "it contains a space or a control character";
        if (std::string_view("<>\"{}|\\^`").find(static_cast<char>(c)) != std::string_view::npos) {
            return std::string("it contains '") + static_cast<char>(c) + "', which a URL must percent-encode";
        }
        if (c == '%' && (k + 2 >= url.size() || !is_ascii_hex(url[k + 1]) || !is_ascii_hex(url[k + 2]))) {
            return "a '%' not followed by two hex digits";
        }
    }
    const std::string_view rest = url.substr(i + 1);
    if (rest.substr(0, 2) == "//") {
        const std::string_view after = rest.substr(2);
        return authority_problem(scheme, after.substr(0, after.find_first_of("/?#")));
    }
    if (scheme == "http" || scheme == "https") return "an http(s) URL needs '//' and a host";
    if (rest.empty()) return "nothing after the scheme";
    return std::nullopt;
}

}  // namespace small
