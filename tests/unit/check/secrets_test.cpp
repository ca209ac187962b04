#include "small/check/secrets.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "support/fixtures.hpp"

namespace small {
namespace {

using testing::contains;

std::string value_reason(std::string_view value) {
    auto reason = secret_value_reason(value);
    EXPECT_TRUE(reason.has_value()) << "not flagged: " << value;
    return reason.value_or("");
}

void expect_clean_value(std::string_view value) {
    auto reason = secret_value_reason(value);
    EXPECT_FALSE(reason.has_value()) << value << " -> " << reason.value_or("");
}

// ---- key names ----

TEST(SecretKey, FlagsReferenceWords) {
    for (const char* key : {"api_key", "apikey", "password", "token", "access_token",
                            "client_secret", "private_key", "secret", "passwd", "db_password"}) {
        EXPECT_TRUE(secret_key_reason(key).has_value()) << key;
    }
}

TEST(SecretKey, IsCaseInsensitive) {
    EXPECT_EQ(secret_key_reason("API_KEY"), "key name contains \"api_key\"");
    EXPECT_EQ(secret_key_reason("GitHubToken"), "key name contains \"token\"");
    EXPECT_EQ(secret_key_reason("ApiKey"), "key name contains \"apikey\"");
}

TEST(SecretKey, ReasonNamesTheMostSpecificWord) {
    EXPECT_EQ(secret_key_reason("token"), "key name contains \"token\"");
    EXPECT_EQ(secret_key_reason("access_token"), "key name contains \"access_token\"");
    EXPECT_EQ(secret_key_reason("client_secret"), "key name contains \"secret\"");
    EXPECT_EQ(secret_key_reason("private_key"), "key name contains \"private_key\"");
    EXPECT_EQ(secret_key_reason("password"), "key name contains \"password\"");
}

TEST(SecretKey, OrdinaryKeysAreClean) {
    for (const char* key : {"title", "notes", "summary", "evidence", "commit", "task_id",
                            "timestamp", "link", "key", "description", "owner", ""}) {
        EXPECT_FALSE(secret_key_reason(key).has_value()) << key;
    }
}

// ---- the whole-value base64 rule ----

TEST(SecretValue, HexIdsAreNotSecrets) {
    expect_clean_value("3f2a9c1e4b5d6f7a8b9c0d1e2f3a4b5c6d7e8f90");  // 40-hex commit
    expect_clean_value("3F2A9C1E4B5D6F7A8B9C0D1E2F3A4B5C6D7E8F90");  // upper-case hex
    expect_clean_value("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect_clean_value("abc1234");  // short commit
}

TEST(SecretCommit, HexIsExemptOnlyAsACommitHash) {
    EXPECT_FALSE(secret_commit_reason("abc1234").has_value());
    EXPECT_FALSE(secret_commit_reason("3f2a9c1e4b5d6f7a8b9c0d1e2f3a4b5c6d7e8f90").has_value());  // 40
    EXPECT_FALSE(secret_commit_reason("3F2A9C1E4B5D6F7A8B9C0D1E2F3A4B5C6D7E8F90").has_value());  // 40, upper
    for (const char* longer : {"3f2a9c1e4b5d6f7a8b9c0d1e2f3a4b5c6d7e8f901",  // 41
                               "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}) {
        const auto why = secret_commit_reason(longer);
        ASSERT_TRUE(why.has_value()) << longer;
        EXPECT_TRUE(contains(*why, "32+ base64 characters")) << *why;
    }
}

TEST(SecretCommit, OtherSecretShapesStillCount) {
    EXPECT_EQ(secret_commit_reason("ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
              secret_value_reason("ghp_abcdefghijklmnopqrstuvwxyz0123456789"));
    EXPECT_TRUE(secret_commit_reason("ghp_abcdefghijklmnopqrstuvwxyz0123456789").has_value());
}

TEST(SecretValue, FlagsLongBase64Word) {
    const std::string why = value_reason("Zk9vQmFyQmF6UXV4MTIzNDU2Nzg5MGFiY2RlZmdo");  // 40 chars
    EXPECT_EQ(why, "value looks like an encoded secret (32+ base64 characters)");
    value_reason("aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=");
    value_reason("aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Qh==");
    value_reason("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");  // AWS secret access key shape
}

TEST(SecretValue, ShortOrWordLikeValuesAreClean) {
    expect_clean_value("Zk9vQmFyQmF6UXV4MTIzNDU2Nzg5");  // 28 chars: too short
    expect_clean_value("pneumonoultramicroscopicsilicovolcanoconiosis");
    expect_clean_value("ThisIsAVeryLongCamelCaseIdentifierName");
    expect_clean_value("src/core/internal/handlers/v2/request_parsing.cpp");
    expect_clean_value("src/core/internal/handlers/v2/requests/parsing");
    expect_clean_value("Zk9vQmFyQmF6UXV4MTIzNDU2Nzg5MGFiY2RlZmdo===");  // 3 '=' pads
}

// ---- token shapes ----

TEST(SecretValue, FlagsAwsAccessKeyIdInProse) {
    EXPECT_EQ(value_reason("configured AKIAIOSFODNN7EXAMPLE for the deploy"),
              "value contains an AWS access key id");
    value_reason("ASIAIOSFODNN7EXAMPLE");
    value_reason("AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE");
}

TEST(SecretValue, AwsShapeNeedsExactLengthAndWordStart) {
    expect_clean_value("AKIAIOSFODNN7EXAMPL");     // 15 after prefix
    expect_clean_value("AKIAIOSFODNN7EXAMPLEX");   // 17 after prefix
    expect_clean_value("XAKIAIOSFODNN7EXAMPLE");   // not at a word start
    expect_clean_value("AKIAIOSFODNN7EXAMPLEabc");  // runs on
}

TEST(SecretValue, FlagsGitHubTokens) {
    const std::string body36 = "abcdefghijklmnopqrstuvwxyz0123456789";
    for (const char* prefix : {"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}) {
        EXPECT_EQ(value_reason("token " + std::string(prefix) + body36 + " leaked"),
                  "value contains a GitHub token");
    }
    value_reason("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz");
    expect_clean_value("ghp_short");
    expect_clean_value("see github_pat_docs for details");
}

TEST(SecretValue, FlagsGitLabSlackAndGoogle) {
    EXPECT_EQ(value_reason("glpat-abcDEF123456-ghijKLMN"),
              "value contains a GitLab personal access token");
    EXPECT_EQ(value_reason("xoxb-123456789012-abcdefghij"), "value contains a Slack token");
    value_reason("xoxp-1234567890");
    EXPECT_EQ(value_reason("key=AIzaSyA1234567890abcdefghijklmnopqrstuv"),
              "value contains a Google API key");
    expect_clean_value("xoxb-short");
}

TEST(SecretValue, FlagsApiSecretKeys) {
    EXPECT_TRUE(contains(value_reason("OPENAI_API_KEY=sk-proj-abc123DEF456ghi789JKL"),
                         "API secret key"));
    value_reason("sk_live_51Habcdefghijklmnopqrstu");
    value_reason("rk_live_51Habcdefghijklmnopqrstu");
    expect_clean_value("ask-me-about-the-deployment-process-later");
    expect_clean_value("sk-learn-compatible-estimators-module");  // no digit
}

TEST(SecretValue, FlagsPrivateKeyBlocks) {
    for (const char* header : {"-----BEGIN PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----",
                               "-----BEGIN EC PRIVATE KEY-----",
                               "-----BEGIN OPENSSH PRIVATE KEY-----",
                               "-----BEGIN DSA PRIVATE KEY-----",
                               "-----BEGIN ENCRYPTED PRIVATE KEY-----",
                               "-----BEGIN PGP PRIVATE KEY BLOCK-----"}) {
        EXPECT_EQ(value_reason(std::string("key:\n") + header + "\nMIIEvQIBADANBg\n"),
                  "value contains a private key block")
            << header;
    }
    expect_clean_value("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----");
    expect_clean_value("-----BEGIN PUBLIC KEY-----");
}

TEST(SecretValue, FlagsBearerTokens) {
    EXPECT_EQ(value_reason("Authorization: Bearer abcdef0123456789abcdef0123456789"),
              "value contains a bearer token");
    value_reason("curl -H 'authorization: bearer xyz.ABC-123_def~ghi+jkl/mno=' url");
    expect_clean_value("the bearer of this document may proceed");
    expect_clean_value("Authorization: Bearer $TOKEN");
    expect_clean_value("Bearer short123");
}

TEST(SecretValue, FlagsJwt) {
    EXPECT_EQ(value_reason("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
                           "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
              "value contains a JSON Web Token");
    expect_clean_value("eyJhbGciOiJIUzI1NiJ9 only a header");
}

TEST(SecretValue, ReasonNeverContainsTheSecret) {
    const std::string secret = "AKIAIOSFODNN7EXAMPLE";
    EXPECT_FALSE(contains(value_reason("use " + secret), secret));
    const std::string b64 = "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";
    EXPECT_FALSE(contains(value_reason(b64), b64));
}

// ---- ordinary content stays clean ----

TEST(SecretValue, OrdinaryContentIsClean) {
    for (const char* value : {
             "",
             "Implemented the token refresh flow and added tests.",
             "The password reset page now validates the secret question.",
             "ran go test ./... and all passed",
             "src/core/timestamp.cpp",
             "/home/user/projects/small/include/small/base/timestamp.hpp",
             "https://github.com/example/project/pull/123",
             "http://localhost:3000/api/v1/users",
             "2025-01-15T10:00:00.123456789Z",
             "550e8400-e29b-41d4-a716-446655440000",
             "task-1",
             "meta/bootstrap",
             "see skills/basic-usage and risk-assessment-notes",
             "Ask the team; glance at xoxo notes; ghp is a prefix.",
             "cmake --build build -j8 && ctest --output-on-failure",
         }) {
        expect_clean_value(value);
    }
}

TEST(SecretValue, LongProseScansLinearly) {
    std::string prose;
    for (int i = 0; i < 20000; ++i) prose += "see the bearer of sk-things at -----BEGIN ";
    expect_clean_value(prose);
    prose += " AKIAIOSFODNN7EXAMPLE";
    value_reason(prose);
}

}  // namespace

TEST(SecretValue, FlagsLiteralsAssignedToSecretNamedVariables) {
    for (const char* v : {"password=hunter2hunter2", "ran with DB_PASSWORD=s3cr3t-value", "curl -u x --token='abcdef123456'",
                          "https://example.com/cb?access_token=abcdefgh12345678&x=1", "export API_KEY=\"0123456789abcdef\""}) {
        EXPECT_TRUE(contains(value_reason(v), "secret-named variable")) << v;
    }
}

TEST(SecretValue, PlaceholdersAndShortOrProseAssignmentsAreNotSecrets) {
    for (const char* v : {"password=$DB_PASSWORD in the env", "token=${TOKEN} from CI", "secret=<redacted> here",
                          "password=*** (masked in the log)", "password=short ok", "the password: see the vault",
                          "rotated the token after review", "passwords=are not assigned here"}) {
        expect_clean_value(v);
    }
}

// ---- the prefilter hides no finding ----

// Every string literal of this file (the secrets and the clean values above).
std::vector<std::string> literals_of_this_file() {
    std::ifstream in(std::string(SMALL_SOURCE_DIR) + "/tests/unit/check/secrets_test.cpp");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> out;
    const std::regex literal(R"re("((?:[^"\\\n]|\\.)*)")re");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), literal); it != std::sregex_iterator(); ++it) {
        std::string value;
        const std::string raw = (*it)[1];
        for (std::size_t i = 0; i < raw.size(); ++i) {
            if (raw[i] != '\\' || i + 1 == raw.size()) {
                value += raw[i];
                continue;
            }
            const char e = raw[++i];
            value += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        }
        out.push_back(value);
    }
    return out;
}

// Values near the rules' edges: runs of token characters around the
// shortest lengths, prefixes, assignments, separators.
std::vector<std::string> generated_values() {
    const std::vector<std::string> parts = {
        "AKIA", "ASIA", "ghp_", "github_pat_", "glpat-", "xoxb-", "sk-", "sk_live_", "rk_live_", "AIza", "eyJ",
        "-----BEGIN ", "RSA PRIVATE KEY-----", "Bearer ", "bearer\t", "password=", "API_KEY=\"", "token='", "=",
        " ", ";", ":", ".", "\"", "'", "\t", "\xC3\xA9", "/", "+", "~", "_", "-", "$X", "<x>", "***", "==", "\n"};
    std::mt19937 rng(39);
    std::vector<std::string> out;
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    for (int i = 0; i < 40000; ++i) {
        std::string v;
        const int pieces = 1 + static_cast<int>(rng() % 6);
        for (int p = 0; p < pieces; ++p) {
            if (rng() % 2) {
                v += parts[rng() % parts.size()];
            } else {
                const std::size_t run = std::vector<std::size_t>{5, 9, 10, 14, 15, 16, 19, 20, 22, 31, 32, 36, 40}[rng() % 13];
                for (std::size_t k = 0; k < run; ++k) v += alphabet[rng() % (rng() % 3 == 0 ? 26 : alphabet.size())];
            }
        }
        out.push_back(v);
    }
    return out;
}

TEST(SecretValue, PrefilterHidesNoFinding) {
    std::vector<std::string> corpus = literals_of_this_file();
    ASSERT_GT(corpus.size(), 100u);
    const std::vector<std::string> generated = generated_values();
    corpus.insert(corpus.end(), generated.begin(), generated.end());
    std::size_t found = 0, skipped = 0;
    for (const std::string& v : corpus) {
        const std::optional<std::string> full = secret_value_reason_unfiltered(v);
        EXPECT_EQ(secret_value_reason(v), full) << v;
        if (full) {
            EXPECT_TRUE(may_hold_secret(v)) << v;
        }
        found += full.has_value();
        skipped += !may_hold_secret(v) && v.size() >= 15;
    }
    // Both ways ran: findings behind the prefilter, long values it skipped.
    EXPECT_GT(found, 1000u);
    EXPECT_GT(skipped, 100u);
}

}  // namespace small
