// Secret detection (strict mode; D9): the reference's key-name
// heuristic plus well-known token shapes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace small {

// Why a mapping key looks like it holds a secret (e.g. "key name contains
// \"token\""), or nothing. Case-insensitive.
std::optional<std::string> secret_key_reason(std::string_view key);

// Why a string value looks like a secret (e.g. "value contains an AWS
// access key id", "value contains a private key block"), or nothing. The
// reason never quotes the secret.
std::optional<std::string> secret_value_reason(std::string_view value);

// The cheap test secret_value_reason starts with: false only when no rule
// can match `value` (no '=', no run of 15 or more token characters, and no
// run of 10 beside a "-----"),
// and secret_value_reason_unfiltered, the rules without it; public so that a
// test can prove the test hides no finding.
bool may_hold_secret(std::string_view value);
std::optional<std::string> secret_value_reason_unfiltered(std::string_view value);

// The same for the value of a `commit` key. D9 exempts hex only as a commit
// hash, 7-40 digits: a longer hex string (e.g. 64 digits, which the schema
// rejects too) is flagged as the reference's 32+ base64 rule does.
std::optional<std::string> secret_commit_reason(std::string_view value);

}  // namespace small
