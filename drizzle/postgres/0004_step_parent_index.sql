-- Steps gained `parent_index` (null at the top level). Steps stored before it have no parent: each gets
-- "parent_index": null.
UPDATE "traces" SET "steps" = (
  SELECT jsonb_agg("step" || '{"parent_index": null}'::jsonb ORDER BY "position")
  FROM jsonb_array_elements("traces"."steps") WITH ORDINALITY AS "e"("step", "position")
) WHERE jsonb_array_length("steps") > 0;
