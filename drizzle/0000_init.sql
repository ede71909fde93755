CREATE TABLE "audit_log" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"actor_id" uuid,
	"actor_type" text NOT NULL,
	"action" text NOT NULL,
	"subject_user_id" uuid,
	"target_type" text,
	"target_id" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"ip" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "audit_log_actor_type_check" CHECK ("audit_log"."actor_type" IN ('user', 'admin', 'system', 'webhook', 'job')),
	CONSTRAINT "audit_log_action_check" CHECK ("audit_log"."action" IN ('auth.2fa.disable', 'auth.2fa.enable', 'auth.2fa.recovery_code_used', 'auth.2fa.reencrypt', 'auth.2fa.setup', 'auth.2fa.step_up', 'auth.2fa_failed', 'auth.admin_bootstrap', 'auth.api_token.create', 'auth.api_token.revoke', 'auth.email_verified', 'auth.login', 'auth.login_failed', 'auth.login_mfa_required', 'auth.logout', 'auth.passkey.clone_suspected', 'auth.passkey.delete', 'auth.passkey.register', 'auth.passkey.rename', 'auth.passkey_failed', 'auth.password_change', 'auth.password_change_failed', 'auth.refresh_reuse_detected', 'auth.register', 'paper.account.reset', 'rag_settings.update', 'tracker.issue.agent_file', 'tracker.issue.create', 'tracker.issue.update', 'provider_key.create', 'provider_key.delete', 'provider_key.reencrypt', 'provider_key.rotate', 'provider_key.test', 'provider_key.update', 'admin.platform_limits.update', 'admin.user.2fa_reset', 'admin.user.activate', 'admin.user.delete', 'admin.user.password_reset', 'admin.user.password_set', 'admin.user.suspend', 'admin.user.update', 'admin.users.export', 'billing.grace_period.clear', 'billing.grace_period.expired', 'billing.grace_period.open', 'billing.payment.record', 'billing.subscription.tier_change', 'strategy.create', 'strategy.promote', 'exchange.balance.sync', 'exchange.credential.create', 'exchange.credential.delete', 'exchange.credential.update', 'exchange.credential.validate', 'exchange.credentials.reencrypt', 'exchange.feetoken_burn.update', 'exchange.trades.sync', 'exchange.transfers.sync', 'signal_hook.create', 'signal_hook.rotate', 'signal_hook.delete', 'trading.limits.update', 'trading.limit_caps.update', 'trading.halt.start', 'trading.halt.daily_loss', 'trading.halt.end', 'trading.platform_halt.start', 'trading.platform_halt.end', 'mail.suppression.add', 'order.place', 'order.transition', 'order.cancel', 'command_center.agent_activity.create', 'command_center.intel.create', 'command_center.intel.score', 'command_center.task.comment', 'command_center.task.create', 'command_center.task.update'))
);
--> statement-breakpoint
CREATE TABLE "outbox" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer DEFAULT 8 NOT NULL,
	"available_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"last_error" text,
	"result" text,
	"dedupe_key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"processed_at" timestamp with time zone,
	CONSTRAINT "outbox_kind_check" CHECK ("outbox"."kind" IN ('chat.post', 'mail.send', 'notify.send')),
	CONSTRAINT "outbox_status_check" CHECK ("outbox"."status" IN ('pending', 'processing', 'done', 'dead'))
);
--> statement-breakpoint
CREATE TABLE "guard_counters" (
	"key" text PRIMARY KEY NOT NULL,
	"count" integer NOT NULL,
	"window_end" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "admin_exports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"created_by" uuid,
	"file_name" text NOT NULL,
	"row_count" integer NOT NULL,
	"content" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "platform_limits" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"backtest_per_hour" integer NOT NULL,
	"optimize_per_hour" integer NOT NULL,
	"paper_transition_per_hour" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" uuid,
	CONSTRAINT "platform_limits_single_row" CHECK ("platform_limits"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE "agent_activity_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent_id" text NOT NULL,
	"agent_name" text,
	"kind" text NOT NULL,
	"rationale" text DEFAULT '' NOT NULL,
	"action" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"wire" text
);
--> statement-breakpoint
CREATE TABLE "command_center_task_assignee_day_counts" (
	"assignee" text NOT NULL,
	"created_day" date NOT NULL,
	"status" text NOT NULL,
	"priority" text NOT NULL,
	"source_type" text NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "command_center_task_assignee_day_counts_assignee_created_day_status_priority_source_type_pk" PRIMARY KEY("assignee","created_day","status","priority","source_type")
);
--> statement-breakpoint
CREATE TABLE "command_center_task_blockers" (
	"task_id" uuid NOT NULL,
	"blocker_id" uuid NOT NULL,
	CONSTRAINT "command_center_task_blockers_task_id_blocker_id_pk" PRIMARY KEY("task_id","blocker_id")
);
--> statement-breakpoint
CREATE TABLE "command_center_task_comments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"task_id" uuid NOT NULL,
	"body" text NOT NULL,
	"author_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "command_center_task_counts" (
	"status" text NOT NULL,
	"priority" text NOT NULL,
	"assignee" text NOT NULL,
	"source_type" text NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "command_center_task_counts_status_priority_assignee_source_type_pk" PRIMARY KEY("status","priority","assignee","source_type")
);
--> statement-breakpoint
CREATE TABLE "command_center_task_day_counts" (
	"status" text NOT NULL,
	"created_day" date NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "command_center_task_day_counts_status_created_day_pk" PRIMARY KEY("status","created_day")
);
--> statement-breakpoint
CREATE TABLE "command_center_tasks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"status" text DEFAULT 'todo' NOT NULL,
	"priority" text DEFAULT 'medium' NOT NULL,
	"assignee" text,
	"repo" text NOT NULL,
	"source_type" text DEFAULT 'human' NOT NULL,
	"source_id" text,
	"goal_id" text,
	"parent_task_id" uuid,
	"result" text,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "market_intel_counts" (
	"trust_tier" text NOT NULL,
	"source" text NOT NULL,
	"direction" text NOT NULL,
	"outcome" text NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "market_intel_counts_trust_tier_source_direction_outcome_pk" PRIMARY KEY("trust_tier","source","direction","outcome")
);
--> statement-breakpoint
CREATE TABLE "market_intel_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"event_type" text NOT NULL,
	"asset" text NOT NULL,
	"symbol" text NOT NULL,
	"direction" text NOT NULL,
	"source" text NOT NULL,
	"trust_tier" text DEFAULT 'standard' NOT NULL,
	"strength" double precision NOT NULL,
	"evidence" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"raw_note" text DEFAULT '' NOT NULL,
	"detected_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone,
	"outcome_pct" double precision,
	"scored_at" timestamp with time zone,
	"scoring_attempts" integer DEFAULT 0 NOT NULL,
	"scoring_attempted_at" timestamp with time zone,
	"scoring_error" text,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"wire" text
);
--> statement-breakpoint
CREATE TABLE "exchange_balance_syncs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"exchange" text NOT NULL,
	"credential_id" uuid,
	"currencies_synced" integer NOT NULL,
	"synced_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "exchange_balances" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"sync_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"exchange" text NOT NULL,
	"currency" text NOT NULL,
	"free" numeric(38, 18) NOT NULL,
	"locked" numeric(38, 18) NOT NULL,
	"total" numeric(38, 18) NOT NULL,
	"sync_timestamp" timestamp with time zone NOT NULL,
	"sync_status" text DEFAULT 'synced' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "exchange_credentials" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"exchange_name" text NOT NULL,
	"credential_name" text NOT NULL,
	"api_key_sealed" text NOT NULL,
	"api_secret_sealed" text NOT NULL,
	"api_passphrase_sealed" text,
	"api_key_masked" text NOT NULL,
	"permissions" text[] DEFAULT '{}'::text[] NOT NULL,
	"ip_whitelist" text[] DEFAULT '{}'::text[] NOT NULL,
	"exchange_metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"last_used" timestamp with time zone,
	"last_validation" timestamp with time zone,
	"validation_status" text DEFAULT 'pending' NOT NULL,
	"validation_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exchange_credentials_validation_status_check" CHECK ("exchange_credentials"."validation_status" IN ('pending', 'valid', 'invalid', 'error'))
);
--> statement-breakpoint
CREATE TABLE "exchange_trade_counts" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"total_trades" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "exchange_trade_days" (
	"user_id" uuid NOT NULL,
	"exchange" text NOT NULL,
	"symbol" text NOT NULL,
	"day" date NOT NULL,
	"total_trades" integer NOT NULL,
	"buy_count" integer NOT NULL,
	"sell_count" integer NOT NULL,
	"synced_count" integer NOT NULL,
	"failed_count" integer NOT NULL,
	"total_volume" numeric NOT NULL,
	"total_fees" numeric NOT NULL,
	"first_trade" timestamp with time zone,
	"last_trade" timestamp with time zone,
	CONSTRAINT "exchange_trade_days_user_id_exchange_symbol_day_pk" PRIMARY KEY("user_id","exchange","symbol","day")
);
--> statement-breakpoint
CREATE TABLE "exchange_trades" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"exchange" text NOT NULL,
	"credential_id" uuid,
	"exchange_trade_id" text NOT NULL,
	"symbol" text NOT NULL,
	"side" text NOT NULL,
	"price" numeric(38, 18),
	"amount" numeric(38, 18),
	"total" numeric(38, 18),
	"fee" numeric(38, 18),
	"fee_currency" text,
	"trade_timestamp" timestamp with time zone NOT NULL,
	"sync_status" text DEFAULT 'synced' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "exchange_transfer_cursors" (
	"credential_id" uuid NOT NULL,
	"type" text NOT NULL,
	"synced_until" timestamp with time zone NOT NULL,
	CONSTRAINT "exchange_transfer_cursors_credential_id_type_pk" PRIMARY KEY("credential_id","type"),
	CONSTRAINT "exchange_transfer_cursors_type_check" CHECK ("exchange_transfer_cursors"."type" IN ('deposit', 'withdrawal'))
);
--> statement-breakpoint
CREATE TABLE "exchange_transfers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"exchange" text NOT NULL,
	"credential_id" uuid,
	"type" text NOT NULL,
	"exchange_transfer_id" text NOT NULL,
	"currency" text NOT NULL,
	"amount" numeric(38, 18) NOT NULL,
	"fee" numeric(38, 18) DEFAULT '0' NOT NULL,
	"txid" text,
	"status" text NOT NULL,
	"transfer_timestamp" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exchange_transfers_type_check" CHECK ("exchange_transfers"."type" IN ('deposit', 'withdrawal'))
);
--> statement-breakpoint
CREATE TABLE "scheduled_job_claims" (
	"job" text PRIMARY KEY NOT NULL,
	"run_id" uuid NOT NULL,
	"claimed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "scheduled_job_claims_job_check" CHECK ("scheduled_job_claims"."job" IN ('settle-issue-intents', 'rotate-api-keys', 'cleanup-grace-periods', 'cleanup-device-sessions', 'cleanup-expired-tokens', 'strategy-autopilot/evaluate', 'sync-accounts', 'prune-signal-alerts', 'settle-signal-alerts', 'prune-stream-events', 'reconcile-orders'))
);
--> statement-breakpoint
CREATE TABLE "scheduled_job_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"job" text NOT NULL,
	"trigger" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"status" text NOT NULL,
	"result" jsonb,
	"error" text,
	"units_total" integer,
	"units_succeeded" integer,
	"units_failed" integer,
	"idempotency_key" text,
	CONSTRAINT "scheduled_job_runs_job_check" CHECK ("scheduled_job_runs"."job" IN ('settle-issue-intents', 'rotate-api-keys', 'cleanup-grace-periods', 'cleanup-device-sessions', 'cleanup-expired-tokens', 'strategy-autopilot/evaluate', 'sync-accounts', 'prune-signal-alerts', 'settle-signal-alerts', 'prune-stream-events', 'reconcile-orders')),
	CONSTRAINT "scheduled_job_runs_trigger_check" CHECK ("scheduled_job_runs"."trigger" IN ('http', 'scheduler')),
	CONSTRAINT "scheduled_job_runs_status_check" CHECK ("scheduled_job_runs"."status" IN ('running', 'succeeded', 'partial', 'failed', 'skipped'))
);
--> statement-breakpoint
CREATE TABLE "email_suppressions" (
	"email" text PRIMARY KEY NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_preferences" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"channels" jsonb NOT NULL,
	"events" text[] NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "telegram_link_codes" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"code_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "telegram_link_codes_code_hash_key" UNIQUE("code_hash")
);
--> statement-breakpoint
CREATE TABLE "daily_loss_checks_owed" (
	"user_id" uuid NOT NULL,
	"mode" text NOT NULL,
	"since" timestamp with time zone NOT NULL,
	CONSTRAINT "daily_loss_checks_owed_user_id_mode_pk" PRIMARY KEY("user_id","mode"),
	CONSTRAINT "daily_loss_checks_owed_mode_check" CHECK ("daily_loss_checks_owed"."mode" IN ('paper', 'live'))
);
--> statement-breakpoint
CREATE TABLE "order_fills" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"order_id" uuid NOT NULL,
	"trade_id" text NOT NULL,
	"price" numeric(38, 18) NOT NULL,
	"amount" numeric(38, 18) NOT NULL,
	"fee" numeric(38, 18) NOT NULL,
	"fee_currency" text,
	"maker" boolean DEFAULT false NOT NULL,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"client_order_id" text NOT NULL,
	"exchange" text NOT NULL,
	"symbol" text NOT NULL,
	"side" text NOT NULL,
	"type" text NOT NULL,
	"time_in_force" text NOT NULL,
	"mode" text NOT NULL,
	"amount" numeric(38, 18) NOT NULL,
	"price" numeric(38, 18),
	"status" text NOT NULL,
	"filled" numeric(38, 18) DEFAULT '0' NOT NULL,
	"cost" numeric(38, 18) DEFAULT '0' NOT NULL,
	"fee" numeric(38, 18) DEFAULT '0' NOT NULL,
	"fee_currency" text,
	"average_price" numeric(38, 18),
	"venue_order_id" text,
	"credential_id" uuid,
	"strategy_id" uuid,
	"source" text DEFAULT 'api' NOT NULL,
	"signal_hook_id" uuid,
	"reason" text,
	"idempotency_key" text,
	"request_hash" text,
	"sent_at" timestamp with time zone,
	"not_final" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"checked_at" timestamp with time zone,
	CONSTRAINT "orders_status_check" CHECK ("orders"."status" IN ('pending', 'unknown', 'open', 'partially_filled', 'filled', 'canceled', 'expired', 'rejected')),
	CONSTRAINT "orders_side_check" CHECK ("orders"."side" IN ('buy', 'sell')),
	CONSTRAINT "orders_type_check" CHECK ("orders"."type" IN ('market', 'limit')),
	CONSTRAINT "orders_tif_check" CHECK ("orders"."time_in_force" IN ('GTC', 'IOC', 'FOK')),
	CONSTRAINT "orders_mode_check" CHECK ("orders"."mode" IN ('paper', 'live'))
);
--> statement-breakpoint
CREATE TABLE "paper_accounts" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"reset_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "paper_balances" (
	"user_id" uuid NOT NULL,
	"asset" text NOT NULL,
	"free" numeric(38, 18) NOT NULL,
	"locked" numeric(38, 18) NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "paper_balances_user_id_asset_pk" PRIMARY KEY("user_id","asset"),
	CONSTRAINT "paper_balances_free_check" CHECK ("paper_balances"."free" >= 0),
	CONSTRAINT "paper_balances_locked_check" CHECK ("paper_balances"."locked" >= 0)
);
--> statement-breakpoint
CREATE TABLE "paper_fills" (
	"trade_id" text PRIMARY KEY NOT NULL,
	"order_id" uuid NOT NULL,
	"price" numeric(38, 18) NOT NULL,
	"amount" numeric(38, 18) NOT NULL,
	"fee" numeric(38, 18) NOT NULL,
	"fee_currency" text NOT NULL,
	"maker" boolean NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "paper_fills_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1)
);
--> statement-breakpoint
CREATE TABLE "paper_orders" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"client_order_id" text NOT NULL,
	"exchange" text NOT NULL,
	"symbol" text NOT NULL,
	"venue_symbol" text NOT NULL,
	"base" text NOT NULL,
	"quote" text NOT NULL,
	"side" text NOT NULL,
	"type" text NOT NULL,
	"time_in_force" text NOT NULL,
	"amount" numeric(38, 18) NOT NULL,
	"price" numeric(38, 18),
	"filled" numeric(38, 18) NOT NULL,
	"status" text NOT NULL,
	"maker_fee" numeric(38, 18) NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "paper_orders_status_check" CHECK ("paper_orders"."status" IN ('open', 'partially_filled', 'filled', 'canceled', 'expired', 'rejected')),
	CONSTRAINT "paper_orders_side_check" CHECK ("paper_orders"."side" IN ('buy', 'sell')),
	CONSTRAINT "paper_orders_type_check" CHECK ("paper_orders"."type" IN ('market', 'limit')),
	CONSTRAINT "paper_orders_time_in_force_check" CHECK ("paper_orders"."time_in_force" IN ('GTC', 'IOC', 'FOK'))
);
--> statement-breakpoint
CREATE TABLE "portfolio_candles" (
	"symbol" text NOT NULL,
	"interval" text NOT NULL,
	"open_time" timestamp with time zone NOT NULL,
	"close" numeric(38, 18) NOT NULL,
	CONSTRAINT "portfolio_candles_symbol_interval_open_time_pk" PRIMARY KEY("symbol","interval","open_time")
);
--> statement-breakpoint
CREATE TABLE "portfolio_ledgers" (
	"user_id" uuid NOT NULL,
	"quote" text NOT NULL,
	"state" jsonb NOT NULL,
	"trades" integer NOT NULL,
	"transfers" integer NOT NULL,
	"watermark" timestamp with time zone,
	"margin_count" integer DEFAULT 0 NOT NULL,
	"last_event_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "portfolio_ledgers_user_id_quote_pk" PRIMARY KEY("user_id","quote")
);
--> statement-breakpoint
CREATE TABLE "provider_api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"provider" text NOT NULL,
	"encrypted_key" text NOT NULL,
	"key_prefix" text NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"last_used_at" timestamp with time zone,
	"usage_count" integer DEFAULT 0 NOT NULL,
	"last_rotated_at" timestamp with time zone,
	"rotation_reminder_days" integer DEFAULT 90 NOT NULL,
	"next_rotation_date" timestamp with time zone NOT NULL,
	"notes" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" uuid,
	"updated_by" uuid
);
--> statement-breakpoint
CREATE TABLE "rag_settings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"scope" text DEFAULT 'global' NOT NULL,
	"enabled_sources" jsonb NOT NULL,
	"collection_limits" jsonb NOT NULL,
	"collection_interval_minutes" integer NOT NULL,
	"auto_expiration_days" integer NOT NULL,
	"max_posts_per_run" integer NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" uuid
);
--> statement-breakpoint
CREATE TABLE "signal_alerts" (
	"hook_id" uuid NOT NULL,
	"alert_key" text NOT NULL,
	"order_id" uuid,
	"received_at" timestamp with time zone NOT NULL,
	"alert" jsonb,
	CONSTRAINT "signal_alerts_hook_id_alert_key_pk" PRIMARY KEY("hook_id","alert_key")
);
--> statement-breakpoint
CREATE TABLE "signal_hooks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"name" text NOT NULL,
	"mode" text NOT NULL,
	"exchange" text NOT NULL,
	"max_lag_seconds" integer NOT NULL,
	"allowed_ips" text[],
	"secret_hash" text NOT NULL,
	"alerts_accepted" integer DEFAULT 0 NOT NULL,
	"alerts_refused" integer DEFAULT 0 NOT NULL,
	"last_alert_at" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "signal_hooks_mode_check" CHECK ("signal_hooks"."mode" IN ('paper', 'live')),
	CONSTRAINT "signal_hooks_max_lag_check" CHECK ("signal_hooks"."max_lag_seconds" BETWEEN 1 AND 86400)
);
--> statement-breakpoint
CREATE TABLE "strategies" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"owner_user_id" uuid,
	"status" text DEFAULT 'draft' NOT NULL,
	"paper_started_at" timestamp with time zone,
	"live_started_at" timestamp with time zone,
	"metrics" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"metrics_state" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "strategies_status_check" CHECK ("strategies"."status" IN ('draft', 'paper', 'live', 'retired'))
);
--> statement-breakpoint
CREATE TABLE "strategy_fills" (
	"strategy_id" uuid NOT NULL,
	"trade_id" text NOT NULL,
	"order_id" text NOT NULL,
	"symbol" text NOT NULL,
	"side" text NOT NULL,
	"price" numeric(38, 18) NOT NULL,
	"amount" numeric(38, 18) NOT NULL,
	"fee" numeric(38, 18) NOT NULL,
	"fee_currency" text,
	"at" timestamp with time zone NOT NULL,
	CONSTRAINT "strategy_fills_strategy_id_trade_id_pk" PRIMARY KEY("strategy_id","trade_id"),
	CONSTRAINT "strategy_fills_side_check" CHECK ("strategy_fills"."side" IN ('buy', 'sell'))
);
--> statement-breakpoint
CREATE TABLE "strategy_lots" (
	"strategy_id" uuid NOT NULL,
	"symbol" text NOT NULL,
	"seq" integer NOT NULL,
	"amount" numeric NOT NULL,
	"cost" numeric NOT NULL,
	CONSTRAINT "strategy_lots_strategy_id_symbol_seq_pk" PRIMARY KEY("strategy_id","symbol","seq")
);
--> statement-breakpoint
CREATE TABLE "strategy_status_counts" (
	"status" text PRIMARY KEY NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "strategy_status_counts_status_check" CHECK ("strategy_status_counts"."status" IN ('draft', 'paper', 'live', 'retired'))
);
--> statement-breakpoint
CREATE TABLE "strategy_transitions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"strategy_id" uuid NOT NULL,
	"from_status" text NOT NULL,
	"to_status" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"reason" text NOT NULL,
	CONSTRAINT "strategy_transitions_from_status_check" CHECK ("strategy_transitions"."from_status" IN ('draft', 'paper', 'live', 'retired')),
	CONSTRAINT "strategy_transitions_to_status_check" CHECK ("strategy_transitions"."to_status" IN ('draft', 'paper', 'live', 'retired'))
);
--> statement-breakpoint
CREATE TABLE "stream_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"audience" text NOT NULL,
	"user_id" uuid,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "stream_events_type_check" CHECK ("stream_events"."type" IN ('balance.synced', 'trades.synced', 'transfers.synced', 'portfolio.updated', 'credential.validated', 'credential.changed', 'job.finished', 'signal.refused', 'trading.halted', 'webhook.received', 'order.updated')),
	CONSTRAINT "stream_events_audience_check" CHECK ("stream_events"."audience" IN ('user', 'admins')),
	CONSTRAINT "stream_events_user_check" CHECK (("stream_events"."audience" = 'admins') = ("stream_events"."user_id" IS NULL))
);
--> statement-breakpoint
CREATE TABLE "tracker_issue_intents" (
	"id" uuid PRIMARY KEY NOT NULL,
	"audit" jsonb NOT NULL,
	"agent_key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tracker_issue_labels" (
	"issue_id" uuid NOT NULL,
	"label_id" uuid NOT NULL,
	CONSTRAINT "tracker_issue_labels_issue_id_label_id_pk" PRIMARY KEY("issue_id","label_id")
);
--> statement-breakpoint
CREATE TABLE "tracker_issues" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" uuid NOT NULL,
	"number" integer NOT NULL,
	"identifier" text NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"state_id" uuid NOT NULL,
	"priority" integer DEFAULT 0 NOT NULL,
	"assignee_id" uuid,
	"project_id" text,
	"parent_id" uuid,
	"estimate" integer,
	"due_date" date,
	"agent_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tracker_labels" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"color" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tracker_teams" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"key" text NOT NULL,
	"name" text NOT NULL,
	"issue_counter" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tracker_workflow_states" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" uuid NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"position" integer NOT NULL,
	"color" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "trading_halts" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"cause" text NOT NULL,
	"reason" text NOT NULL,
	"halted_at" timestamp with time zone NOT NULL,
	"until" timestamp with time zone,
	CONSTRAINT "trading_halts_cause_check" CHECK ("trading_halts"."cause" IN ('user', 'daily_loss'))
);
--> statement-breakpoint
CREATE TABLE "trading_limits" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"max_order_notional" numeric,
	"max_open_orders" integer,
	"max_orders_per_minute" integer,
	"price_band_percent" numeric,
	"daily_loss_limit" numeric,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "trading_platform" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"max_order_notional" numeric,
	"max_open_orders" integer,
	"max_orders_per_minute" integer,
	"price_band_percent" numeric,
	"daily_loss_limit" numeric,
	"halted" boolean DEFAULT false NOT NULL,
	"halt_reason" text,
	"halted_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "trading_platform_single_row" CHECK ("trading_platform"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE "passkeys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"credential_id" text NOT NULL,
	"public_key" text NOT NULL,
	"counter" bigint DEFAULT 0 NOT NULL,
	"transports" text[] DEFAULT '{}' NOT NULL,
	"device_type" text NOT NULL,
	"backed_up" boolean DEFAULT false NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	CONSTRAINT "passkeys_device_type_check" CHECK ("passkeys"."device_type" IN ('singleDevice', 'multiDevice'))
);
--> statement-breakpoint
CREATE TABLE "webauthn_challenges" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"token_hash" text NOT NULL,
	"purpose" text NOT NULL,
	"user_id" uuid,
	"named_account" boolean DEFAULT false NOT NULL,
	"session_id" uuid,
	"mfa_challenge_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	CONSTRAINT "webauthn_challenges_purpose_check" CHECK ("webauthn_challenges"."purpose" IN ('register', 'login', 'mfa', 'step-up'))
);
--> statement-breakpoint
CREATE TABLE "api_tokens" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"token_hash" text NOT NULL,
	"scopes" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "device_session_expiry_days" (
	"day" date PRIMARY KEY NOT NULL,
	"n" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "device_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"user_agent" text,
	"ip" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"revoke_reason" text,
	"second_factor_at" timestamp with time zone,
	"second_factor_method" text,
	"first_factor" text DEFAULT 'pwd' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "email_verification_tokens" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"email" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "external_identities" (
	"issuer" text NOT NULL,
	"subject" text NOT NULL,
	"user_id" uuid NOT NULL,
	"linked_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "external_identities_issuer_subject_pk" PRIMARY KEY("issuer","subject")
);
--> statement-breakpoint
CREATE TABLE "mfa_challenges" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "password_reset_tokens" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "refresh_tokens" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"session_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"rotated_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "two_factor_recovery_codes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"code_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "user_counts" (
	"status" text NOT NULL,
	"role" text NOT NULL,
	"subscription_tier" text NOT NULL,
	"created_day" date NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "user_counts_status_role_subscription_tier_created_day_pk" PRIMARY KEY("status","role","subscription_tier","created_day")
);
--> statement-breakpoint
CREATE TABLE "user_day_counts" (
	"status" text NOT NULL,
	"created_day" date NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "user_day_counts_status_created_day_pk" PRIMARY KEY("status","created_day")
);
--> statement-breakpoint
CREATE TABLE "user_grace_periods" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"ends_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"first_name" text DEFAULT '' NOT NULL,
	"last_name" text DEFAULT '' NOT NULL,
	"role" text DEFAULT 'user' NOT NULL,
	"subscription_tier" text DEFAULT 'free' NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"email_verified" boolean DEFAULT false NOT NULL,
	"owner" boolean DEFAULT false NOT NULL,
	"two_factor_enabled" boolean DEFAULT false NOT NULL,
	"totp_enabled" boolean DEFAULT false NOT NULL,
	"totp_secret_sealed" text,
	"totp_last_step" bigint DEFAULT 0 NOT NULL,
	"avatar" text,
	"last_login" timestamp with time zone,
	"grace_period_ends_at" timestamp with time zone,
	"deleted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_role_check" CHECK ("users"."role" IN ('user', 'admin')),
	CONSTRAINT "users_status_check" CHECK ("users"."status" IN ('active', 'suspended', 'deleted')),
	CONSTRAINT "users_subscription_tier_check" CHECK ("users"."subscription_tier" IN ('free', 'basic', 'pro', 'enterprise'))
);
--> statement-breakpoint
CREATE TABLE "payment_customers" (
	"customer_id" text PRIMARY KEY NOT NULL,
	"user_id" uuid,
	"email" text,
	"tier" text,
	"proven" boolean,
	"raised_from" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments_ledger" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"external_id" text NOT NULL,
	"user_id" uuid,
	"customer_email" text,
	"amount" numeric(20, 8) NOT NULL,
	"currency" text NOT NULL,
	"kind" text DEFAULT 'payment' NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments_revenue" (
	"currency" text PRIMARY KEY NOT NULL,
	"amount" numeric NOT NULL,
	"payments" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"provider" text NOT NULL,
	"delivery_id" text NOT NULL,
	"content_key" text,
	"event" text NOT NULL,
	"payload" jsonb NOT NULL,
	"verified" boolean DEFAULT true NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 1 NOT NULL,
	"processed_at" timestamp with time zone,
	"error" text,
	CONSTRAINT "webhook_deliveries_provider_check" CHECK ("webhook_deliveries"."provider" IN ('codehost', 'payments', 'edge', 'tracker', 'errormon', 'database', 'authprovider', 'mailer')),
	CONSTRAINT "webhook_deliveries_status_check" CHECK ("webhook_deliveries"."status" IN ('processing', 'processed', 'failed', 'unmatched', 'superseded'))
);
--> statement-breakpoint
CREATE TABLE "webhook_delivery_counts" (
	"provider" text NOT NULL,
	"status" text NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "webhook_delivery_counts_provider_status_pk" PRIMARY KEY("provider","status")
);
--> statement-breakpoint
CREATE TABLE "webhook_delivery_hours" (
	"provider" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "webhook_delivery_hours_provider_hour_pk" PRIMARY KEY("provider","hour")
);
--> statement-breakpoint
ALTER TABLE "command_center_task_blockers" ADD CONSTRAINT "command_center_task_blockers_task_id_command_center_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."command_center_tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "command_center_task_blockers" ADD CONSTRAINT "command_center_task_blockers_blocker_id_command_center_tasks_id_fk" FOREIGN KEY ("blocker_id") REFERENCES "public"."command_center_tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "command_center_task_comments" ADD CONSTRAINT "command_center_task_comments_task_id_command_center_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."command_center_tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "command_center_tasks" ADD CONSTRAINT "command_center_tasks_parent_task_id_command_center_tasks_id_fk" FOREIGN KEY ("parent_task_id") REFERENCES "public"."command_center_tasks"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exchange_balance_syncs" ADD CONSTRAINT "exchange_balance_syncs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exchange_balance_syncs" ADD CONSTRAINT "exchange_balance_syncs_credential_id_exchange_credentials_id_fk" FOREIGN KEY ("credential_id") REFERENCES "public"."exchange_credentials"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exchange_balances" ADD CONSTRAINT "exchange_balances_sync_id_exchange_balance_syncs_id_fk" FOREIGN KEY ("sync_id") REFERENCES "public"."exchange_balance_syncs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exchange_balances" ADD CONSTRAINT "exchange_balances_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exchange_credentials" ADD CONSTRAINT "exchange_credentials_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exchange_trades" ADD CONSTRAINT "exchange_trades_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exchange_trades" ADD CONSTRAINT "exchange_trades_credential_id_exchange_credentials_id_fk" FOREIGN KEY ("credential_id") REFERENCES "public"."exchange_credentials"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exchange_transfer_cursors" ADD CONSTRAINT "exchange_transfer_cursors_credential_id_exchange_credentials_id_fk" FOREIGN KEY ("credential_id") REFERENCES "public"."exchange_credentials"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exchange_transfers" ADD CONSTRAINT "exchange_transfers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exchange_transfers" ADD CONSTRAINT "exchange_transfers_credential_id_exchange_credentials_id_fk" FOREIGN KEY ("credential_id") REFERENCES "public"."exchange_credentials"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_preferences" ADD CONSTRAINT "notification_preferences_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "telegram_link_codes" ADD CONSTRAINT "telegram_link_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "daily_loss_checks_owed" ADD CONSTRAINT "daily_loss_checks_owed_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_fills" ADD CONSTRAINT "order_fills_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "paper_accounts" ADD CONSTRAINT "paper_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "paper_balances" ADD CONSTRAINT "paper_balances_user_id_paper_accounts_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."paper_accounts"("user_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "paper_fills" ADD CONSTRAINT "paper_fills_order_id_paper_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."paper_orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "paper_orders" ADD CONSTRAINT "paper_orders_user_id_paper_accounts_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."paper_accounts"("user_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "portfolio_ledgers" ADD CONSTRAINT "portfolio_ledgers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signal_alerts" ADD CONSTRAINT "signal_alerts_hook_id_signal_hooks_id_fk" FOREIGN KEY ("hook_id") REFERENCES "public"."signal_hooks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signal_hooks" ADD CONSTRAINT "signal_hooks_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "strategies" ADD CONSTRAINT "strategies_owner_user_id_users_id_fk" FOREIGN KEY ("owner_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "strategy_fills" ADD CONSTRAINT "strategy_fills_strategy_id_strategies_id_fk" FOREIGN KEY ("strategy_id") REFERENCES "public"."strategies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "strategy_lots" ADD CONSTRAINT "strategy_lots_strategy_id_strategies_id_fk" FOREIGN KEY ("strategy_id") REFERENCES "public"."strategies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "strategy_transitions" ADD CONSTRAINT "strategy_transitions_strategy_id_strategies_id_fk" FOREIGN KEY ("strategy_id") REFERENCES "public"."strategies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tracker_issue_labels" ADD CONSTRAINT "tracker_issue_labels_issue_id_tracker_issues_id_fk" FOREIGN KEY ("issue_id") REFERENCES "public"."tracker_issues"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tracker_issue_labels" ADD CONSTRAINT "tracker_issue_labels_label_id_tracker_labels_id_fk" FOREIGN KEY ("label_id") REFERENCES "public"."tracker_labels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tracker_issues" ADD CONSTRAINT "tracker_issues_team_id_tracker_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."tracker_teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tracker_issues" ADD CONSTRAINT "tracker_issues_state_id_tracker_workflow_states_id_fk" FOREIGN KEY ("state_id") REFERENCES "public"."tracker_workflow_states"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tracker_issues" ADD CONSTRAINT "tracker_issues_assignee_id_users_id_fk" FOREIGN KEY ("assignee_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tracker_issues" ADD CONSTRAINT "tracker_issues_parent_id_tracker_issues_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."tracker_issues"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tracker_workflow_states" ADD CONSTRAINT "tracker_workflow_states_team_id_tracker_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."tracker_teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trading_halts" ADD CONSTRAINT "trading_halts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trading_limits" ADD CONSTRAINT "trading_limits_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "passkeys" ADD CONSTRAINT "passkeys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webauthn_challenges" ADD CONSTRAINT "webauthn_challenges_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webauthn_challenges" ADD CONSTRAINT "webauthn_challenges_mfa_challenge_id_mfa_challenges_id_fk" FOREIGN KEY ("mfa_challenge_id") REFERENCES "public"."mfa_challenges"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_sessions" ADD CONSTRAINT "device_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_verification_tokens" ADD CONSTRAINT "email_verification_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "external_identities" ADD CONSTRAINT "external_identities_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mfa_challenges" ADD CONSTRAINT "mfa_challenges_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "password_reset_tokens" ADD CONSTRAINT "password_reset_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "two_factor_recovery_codes" ADD CONSTRAINT "two_factor_recovery_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_grace_periods" ADD CONSTRAINT "user_grace_periods_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_customers" ADD CONSTRAINT "payment_customers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments_ledger" ADD CONSTRAINT "payments_ledger_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_subject_idx" ON "audit_log" USING btree ("subject_user_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_log_actor_idx" ON "audit_log" USING btree ("actor_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_log_created_idx" ON "audit_log" USING btree ("created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_log_target_idx" ON "audit_log" USING hash ("target_id") WHERE "audit_log"."target_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "outbox_claim_idx" ON "outbox" USING btree ("status","available_at");--> statement-breakpoint
CREATE UNIQUE INDEX "outbox_dedupe_key" ON "outbox" USING btree ("dedupe_key");--> statement-breakpoint
CREATE INDEX "outbox_kind_idx" ON "outbox" USING btree ("kind","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "guard_counters_window_end_idx" ON "guard_counters" USING btree ("window_end");--> statement-breakpoint
CREATE INDEX "admin_exports_expires_idx" ON "admin_exports" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "agent_activity_events_created_idx" ON "agent_activity_events" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "agent_activity_events_agent_idx" ON "agent_activity_events" USING btree ("agent_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "command_center_task_blockers_blocker_idx" ON "command_center_task_blockers" USING btree ("blocker_id");--> statement-breakpoint
CREATE INDEX "command_center_task_comments_task_idx" ON "command_center_task_comments" USING btree ("task_id","created_at");--> statement-breakpoint
CREATE INDEX "command_center_task_counts_assignee_idx" ON "command_center_task_counts" USING btree ("assignee");--> statement-breakpoint
CREATE INDEX "command_center_tasks_created_idx" ON "command_center_tasks" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "command_center_tasks_todo_idx" ON "command_center_tasks" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "command_center_tasks"."status" = 'todo';--> statement-breakpoint
CREATE INDEX "command_center_tasks_in_progress_idx" ON "command_center_tasks" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "command_center_tasks"."status" = 'in_progress';--> statement-breakpoint
CREATE INDEX "command_center_tasks_blocked_idx" ON "command_center_tasks" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "command_center_tasks"."status" = 'blocked';--> statement-breakpoint
CREATE INDEX "command_center_tasks_in_review_idx" ON "command_center_tasks" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "command_center_tasks"."status" = 'in_review';--> statement-breakpoint
CREATE INDEX "command_center_tasks_done_idx" ON "command_center_tasks" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "command_center_tasks"."status" = 'done';--> statement-breakpoint
CREATE INDEX "command_center_tasks_cancelled_idx" ON "command_center_tasks" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "command_center_tasks"."status" = 'cancelled';--> statement-breakpoint
CREATE INDEX "command_center_tasks_critical_idx" ON "command_center_tasks" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "command_center_tasks"."priority" = 'critical';--> statement-breakpoint
CREATE INDEX "command_center_tasks_high_idx" ON "command_center_tasks" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "command_center_tasks"."priority" = 'high';--> statement-breakpoint
CREATE INDEX "command_center_tasks_medium_idx" ON "command_center_tasks" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "command_center_tasks"."priority" = 'medium';--> statement-breakpoint
CREATE INDEX "command_center_tasks_low_idx" ON "command_center_tasks" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "command_center_tasks"."priority" = 'low';--> statement-breakpoint
CREATE INDEX "command_center_tasks_assignee_idx" ON "command_center_tasks" USING btree ("assignee","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "command_center_tasks_parent_idx" ON "command_center_tasks" USING btree ("parent_task_id");--> statement-breakpoint
CREATE INDEX "command_center_tasks_source_idx" ON "command_center_tasks" USING btree ("source_type","source_id");--> statement-breakpoint
CREATE INDEX "market_intel_events_detected_idx" ON "market_intel_events" USING btree ("detected_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "market_intel_events_source_idx" ON "market_intel_events" USING btree ("source");--> statement-breakpoint
CREATE INDEX "market_intel_events_expires_idx" ON "market_intel_events" USING btree ("expires_at") WHERE expires_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX "exchange_balance_syncs_latest_idx" ON "exchange_balance_syncs" USING btree ("user_id","exchange","credential_id","synced_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "exchange_balance_syncs_credential_idx" ON "exchange_balance_syncs" USING btree ("credential_id");--> statement-breakpoint
CREATE INDEX "exchange_balances_sync_idx" ON "exchange_balances" USING btree ("sync_id");--> statement-breakpoint
CREATE INDEX "exchange_balances_history_idx" ON "exchange_balances" USING btree ("user_id","exchange","currency","sync_timestamp" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "exchange_credentials_name_key" ON "exchange_credentials" USING btree ("user_id","exchange_name","credential_name");--> statement-breakpoint
CREATE INDEX "exchange_credentials_user_idx" ON "exchange_credentials" USING btree ("user_id","exchange_name");--> statement-breakpoint
CREATE INDEX "exchange_trade_days_user_day_idx" ON "exchange_trade_days" USING btree ("user_id","day");--> statement-breakpoint
CREATE UNIQUE INDEX "exchange_trades_venue_id_key" ON "exchange_trades" USING btree ("user_id","exchange","symbol","exchange_trade_id");--> statement-breakpoint
CREATE INDEX "exchange_trades_user_time_idx" ON "exchange_trades" USING btree ("user_id","exchange","trade_timestamp" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "exchange_trades_user_all_time_idx" ON "exchange_trades" USING btree ("user_id","trade_timestamp" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "exchange_trades_user_pair_time_idx" ON "exchange_trades" USING btree ("user_id","exchange",replace("symbol", '/', ''),"trade_timestamp" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "exchange_trades_credential_market_idx" ON "exchange_trades" USING btree ("credential_id","symbol","trade_timestamp" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "exchange_trades_user_created_idx" ON "exchange_trades" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "exchange_transfers_venue_id_key" ON "exchange_transfers" USING btree ("user_id","exchange","type","exchange_transfer_id");--> statement-breakpoint
CREATE INDEX "exchange_transfers_user_time_idx" ON "exchange_transfers" USING btree ("user_id","exchange","transfer_timestamp" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "exchange_transfers_credential_idx" ON "exchange_transfers" USING btree ("credential_id");--> statement-breakpoint
CREATE INDEX "scheduled_job_runs_job_started_idx" ON "scheduled_job_runs" USING btree ("job","started_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "scheduled_job_runs_running_idx" ON "scheduled_job_runs" USING btree ("job") WHERE "scheduled_job_runs"."status" = 'running';--> statement-breakpoint
CREATE UNIQUE INDEX "scheduled_job_runs_job_idempotency_key_idx" ON "scheduled_job_runs" USING btree ("job","idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "order_fills_trade_key" ON "order_fills" USING btree ("order_id","trade_id");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_client_order_id_key" ON "orders" USING btree ("exchange","client_order_id");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_idempotency_key" ON "orders" USING btree ("user_id","idempotency_key") WHERE "orders"."idempotency_key" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "orders_user_created_idx" ON "orders" USING btree ("user_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "orders_user_status_idx" ON "orders" USING btree ("user_id","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "orders_not_final_idx" ON "orders" USING btree ("mode","checked_at") WHERE "orders"."not_final";--> statement-breakpoint
CREATE INDEX "orders_user_not_final_idx" ON "orders" USING btree ("user_id","created_at") WHERE "orders"."not_final";--> statement-breakpoint
CREATE INDEX "paper_fills_order_idx" ON "paper_fills" USING btree ("order_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "paper_orders_client_order_idx" ON "paper_orders" USING btree ("user_id","client_order_id");--> statement-breakpoint
CREATE INDEX "paper_orders_resting_idx" ON "paper_orders" USING btree ("venue_symbol") WHERE "paper_orders"."status" IN ('open', 'partially_filled');--> statement-breakpoint
CREATE INDEX "provider_api_keys_provider_idx" ON "provider_api_keys" USING btree ("provider","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "provider_api_keys_rotation_idx" ON "provider_api_keys" USING btree ("is_active","next_rotation_date");--> statement-breakpoint
CREATE UNIQUE INDEX "rag_settings_scope_key" ON "rag_settings" USING btree ("scope");--> statement-breakpoint
CREATE INDEX "signal_alerts_received_idx" ON "signal_alerts" USING btree ("received_at");--> statement-breakpoint
CREATE INDEX "signal_alerts_owed_idx" ON "signal_alerts" USING btree ("received_at") WHERE "signal_alerts"."order_id" IS NULL AND "signal_alerts"."alert" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "signal_hooks_user_idx" ON "signal_hooks" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "strategies_created_idx" ON "strategies" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "strategies_status_idx" ON "strategies" USING btree ("status","paper_started_at");--> statement-breakpoint
CREATE INDEX "strategies_owner_idx" ON "strategies" USING btree ("owner_user_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "strategies_promotable_idx" ON "strategies" USING btree ("paper_started_at","id") WHERE "strategies"."status" = 'paper'
    AND (CASE WHEN jsonb_typeof("strategies"."metrics" -> 'paper_trades') = 'number'
      THEN ("strategies"."metrics" ->> 'paper_trades')::numeric END) >= 30
    AND (CASE WHEN jsonb_typeof("strategies"."metrics" -> 'return_pct') = 'number'
      THEN ("strategies"."metrics" ->> 'return_pct')::numeric END) > 0
    AND abs((CASE WHEN jsonb_typeof("strategies"."metrics" -> 'max_drawdown_pct') = 'number'
      THEN ("strategies"."metrics" ->> 'max_drawdown_pct')::numeric END)) <= 10
    AND (CASE WHEN jsonb_typeof("strategies"."metrics" -> 'win_rate') = 'number'
      THEN ("strategies"."metrics" ->> 'win_rate')::numeric END) >= 0.5;--> statement-breakpoint
CREATE INDEX "strategy_fills_at_idx" ON "strategy_fills" USING btree ("strategy_id","at");--> statement-breakpoint
CREATE INDEX "strategy_fills_order_idx" ON "strategy_fills" USING btree ("strategy_id","order_id");--> statement-breakpoint
CREATE INDEX "strategy_transitions_at_idx" ON "strategy_transitions" USING btree ("at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "strategy_transitions_strategy_idx" ON "strategy_transitions" USING btree ("strategy_id","at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "stream_events_user_idx" ON "stream_events" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "stream_events_created_idx" ON "stream_events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "tracker_issue_intents_agent_idx" ON "tracker_issue_intents" USING btree ("agent_key");--> statement-breakpoint
CREATE INDEX "tracker_issue_intents_created_idx" ON "tracker_issue_intents" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "tracker_issue_labels_label_idx" ON "tracker_issue_labels" USING btree ("label_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tracker_issues_identifier_key" ON "tracker_issues" USING btree ("identifier");--> statement-breakpoint
CREATE UNIQUE INDEX "tracker_issues_team_number_key" ON "tracker_issues" USING btree ("team_id","number");--> statement-breakpoint
CREATE INDEX "tracker_issues_updated_idx" ON "tracker_issues" USING btree ("updated_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tracker_issues_state_idx" ON "tracker_issues" USING btree ("state_id","updated_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tracker_issues_assignee_idx" ON "tracker_issues" USING btree ("assignee_id","updated_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tracker_issues_parent_idx" ON "tracker_issues" USING btree ("parent_id");--> statement-breakpoint
CREATE INDEX "tracker_issues_agent_idx" ON "tracker_issues" USING btree ("agent_id","title");--> statement-breakpoint
CREATE UNIQUE INDEX "tracker_labels_name_key" ON "tracker_labels" USING btree (lower("name"));--> statement-breakpoint
CREATE UNIQUE INDEX "tracker_teams_key_key" ON "tracker_teams" USING btree ("key");--> statement-breakpoint
CREATE UNIQUE INDEX "tracker_workflow_states_team_name_key" ON "tracker_workflow_states" USING btree ("team_id",lower("name"));--> statement-breakpoint
CREATE UNIQUE INDEX "passkeys_credential_key" ON "passkeys" USING btree ("credential_id");--> statement-breakpoint
CREATE INDEX "passkeys_user_idx" ON "passkeys" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "webauthn_challenges_hash_key" ON "webauthn_challenges" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "webauthn_challenges_expires_idx" ON "webauthn_challenges" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "webauthn_challenges_user_idx" ON "webauthn_challenges" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "webauthn_challenges_mfa_challenge_idx" ON "webauthn_challenges" USING btree ("mfa_challenge_id");--> statement-breakpoint
CREATE UNIQUE INDEX "api_tokens_hash_key" ON "api_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "api_tokens_user_idx" ON "api_tokens" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "device_sessions_user_idx" ON "device_sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "device_sessions_expires_idx" ON "device_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "device_sessions_revoked_idx" ON "device_sessions" USING btree ("revoked_at") WHERE "device_sessions"."revoked_at" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "email_verification_tokens_hash_key" ON "email_verification_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "external_identities_user_issuer_key" ON "external_identities" USING btree ("user_id","issuer");--> statement-breakpoint
CREATE UNIQUE INDEX "mfa_challenges_hash_key" ON "mfa_challenges" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "mfa_challenges_expires_idx" ON "mfa_challenges" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "mfa_challenges_user_idx" ON "mfa_challenges" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "password_reset_tokens_hash_key" ON "password_reset_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "password_reset_tokens_user_idx" ON "password_reset_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "refresh_tokens_hash_key" ON "refresh_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "refresh_tokens_session_idx" ON "refresh_tokens" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "refresh_tokens_expires_idx" ON "refresh_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "refresh_tokens_revoked_idx" ON "refresh_tokens" USING btree ("revoked_at") WHERE "refresh_tokens"."revoked_at" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "two_factor_recovery_codes_user_hash_key" ON "two_factor_recovery_codes" USING btree ("user_id","code_hash");--> statement-breakpoint
CREATE INDEX "user_grace_periods_ends_idx" ON "user_grace_periods" USING btree ("ends_at","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_key" ON "users" USING btree ("email");--> statement-breakpoint
CREATE INDEX "users_created_at_id_idx" ON "users" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "users_status_idx" ON "users" USING btree ("status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "users_role_idx" ON "users" USING btree ("role","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "users_last_name_prefix_idx" ON "users" USING spgist (lower("last_name"));--> statement-breakpoint
CREATE INDEX "users_spaced_name_idx" ON "users" USING btree ("id") WHERE "users"."first_name" LIKE '% %' OR "users"."last_name" LIKE '% %';--> statement-breakpoint
CREATE INDEX "payment_customers_user_idx" ON "payment_customers" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_ledger_external_key" ON "payments_ledger" USING btree ("external_id");--> statement-breakpoint
CREATE INDEX "payments_ledger_user_idx" ON "payments_ledger" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_provider_delivery_key" ON "webhook_deliveries" USING btree ("provider","delivery_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_provider_received_idx" ON "webhook_deliveries" USING btree ("provider","received_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "webhook_deliveries_provider_processed_idx" ON "webhook_deliveries" USING btree ("provider","processed_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "webhook_deliveries_provider_status_idx" ON "webhook_deliveries" USING btree ("provider","status","processed_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "webhook_deliveries_provider_content_idx" ON "webhook_deliveries" USING btree ("provider","content_key");