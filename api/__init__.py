"""datasmith's HTTP API for automation (`python -m api`): the same Assistant the CLI and the bot
use, behind tokens, a leaky bucket per token, idempotency keys and a bound on runs in flight."""
