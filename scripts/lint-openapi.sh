#!/bin/sh
# `npm run lint:openapi` (part of `npm run lint`): Redocly CLI over the committed OpenAPI document, with the rules of
# redocly.yaml. Offline: no telemetry, no update check (the only network it ever needs is the npm registry at install).
set -eu
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true REDOCLY_SUPPRESS_NOTIFICATIONS=true
exec redocly lint packages/client/openapi.json --format stylish --config redocly.yaml
