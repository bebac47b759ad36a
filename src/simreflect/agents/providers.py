"""Model strings as other harnesses write them: `provider/model`, the base URL and key from the environment.

`--model openai/gpt-4.1` talks to OPENAI_BASE_URL (default https://api.openai.com/v1) with the key
in OPENAI_API_KEY; `--model vllm/Qwen/Qwen3-8B` talks to VLLM_BASE_URL with model name
"Qwen/Qwen3-8B". Any provider's defaults can be overridden with <PROVIDER>_BASE_URL and the key
variable with --api-key-env. A model string whose first part is not a known provider is sent as it
is, and then --base-url is required.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

# provider -> default base URL (None: it must come from <PROVIDER>_BASE_URL or --base-url)
PROVIDERS: dict[str, str | None] = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com/v1",
    "google": "https://generativelanguage.googleapis.com/v1beta/openai",
    "openrouter": "https://openrouter.ai/api/v1",
    "together": "https://api.together.xyz/v1",
    "groq": "https://api.groq.com/openai/v1",
    "fireworks": "https://api.fireworks.ai/inference/v1",
    "deepseek": "https://api.deepseek.com/v1",
    "mistral": "https://api.mistral.ai/v1",
    "hf": "https://router.huggingface.co/v1",
    "ollama": "http://localhost:11434/v1",
    "vllm": "http://localhost:8000/v1",
    "sglang": "http://localhost:30000/v1",
    "llamacpp": "http://localhost:8080/v1",
    "lmstudio": "http://localhost:1234/v1",
}


@dataclass(frozen=True)
class Endpoint:
    model: str  # the name sent to the endpoint
    base_url: str
    api_key_env: str
    provider: str | None


class EndpointError(ValueError):
    pass


def resolve(model: str, base_url: str | None = None, api_key_env: str | None = None) -> Endpoint:
    provider, _, rest = model.partition("/")
    if rest and provider.lower() in PROVIDERS:
        p = provider.lower()
        url = base_url or os.environ.get(f"{p.upper()}_BASE_URL") or PROVIDERS[p]
        if not url:
            raise EndpointError(f"set {p.upper()}_BASE_URL or pass --base-url for {model!r}")
        return Endpoint(rest, url, api_key_env or f"{p.upper()}_API_KEY", p)
    if not base_url:
        known = ", ".join(sorted(PROVIDERS))
        raise EndpointError(f"{model!r} names no known provider ({known}); pass --base-url")
    return Endpoint(model, base_url, api_key_env or "SIMREFLECT_API_KEY", None)
