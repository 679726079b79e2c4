"""Secrets never leave the machine: each kind is masked, plain prose is not."""

from __future__ import annotations

import pytest

from clarity.agent.redact import MASK, redact

SECRETS = [
    ("key: sk-ant-api03-" + "a1B2" * 10, "sk-ant-api03"),
    ("OPENAI_API_KEY=sk-proj-" + "Zx9" * 10, "sk-proj-"),
    ("token ghp_" + "A" * 36, "ghp_"),
    ("aws AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE"),
    ("slack xoxb-1234567890-abcdefghij", "xoxb-"),
    ("google AIza" + "x" * 35, "AIza"),
    ("stripe sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "sk_live_"),
    ("Authorization: Bearer abcdef0123456789abcdef.xyz", "abcdef0123456789"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJlLXZhbHVl", "eyJhbGci"),
    ("db postgres://admin:hunter2@db.example.com:5432/app", "hunter2"),
    ("DATABASE_PASSWORD=correct-horse-battery", "correct-horse-battery"),
    ("export GITHUB_TOKEN='t0ps3cr3tvalue'", "t0ps3cr3tvalue"),
    ('  client_secret: "s3cr3t-value"', "s3cr3t-value"),
    ("password = letmein99", "letmein99"),
]


@pytest.mark.parametrize(("text", "secret"), SECRETS)
def test_each_kind_of_secret_is_masked(text: str, secret: str) -> None:
    result = redact(text)
    assert secret not in result.text
    assert MASK in result.text
    assert result.count >= 1


def test_a_private_key_block_is_masked_whole() -> None:
    block = (
        "Deploy with this key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n"
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAMwAAAAtzc2gtZWQyNTUxOQ\n"
        "-----END OPENSSH PRIVATE KEY-----\nthen restart.\n"
    )
    result = redact(block)
    assert result.text == "Deploy with this key:\n[REDACTED PRIVATE KEY]\nthen restart.\n"
    assert result.count == 1


def test_a_cut_off_private_key_is_masked_to_the_end() -> None:
    result = redact("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA")
    assert result.text == "[REDACTED PRIVATE KEY]"


def test_plain_plan_prose_is_left_alone() -> None:
    text = (
        "# Cache layer -- Done\n\nWe keep the token budget small and rotate the API key "
        "monthly. The password reset flow moves to /auth/reset. See https://example.com/docs.\n"
        "- [ ] measure p95 latency\n"
    )
    assert redact(text).text == text
    assert redact(text).count == 0


def test_a_secret_is_counted_once() -> None:
    result = redact("ANTHROPIC_API_KEY=sk-ant-api03-" + "q" * 40)
    assert result.count == 1
    assert result.text == f"ANTHROPIC_API_KEY={MASK}"
