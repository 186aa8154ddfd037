CREATE TABLE "texel_run" (
	"id" serial PRIMARY KEY NOT NULL,
	"params_file" text NOT NULL,
	"positions_file" text NOT NULL,
	"positions" integer NOT NULL,
	"method" text NOT NULL,
	"k" double precision NOT NULL,
	"error_before" double precision NOT NULL,
	"error_after" double precision NOT NULL,
	"start_parameters" jsonb NOT NULL,
	"final_parameters" jsonb NOT NULL,
	"evaluations" integer NOT NULL,
	"passes" integer NOT NULL,
	"positions_per_second" double precision NOT NULL,
	"seconds" double precision NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "texel_run_method" CHECK ("texel_run"."method" in ('local', 'adaptive'))
);
