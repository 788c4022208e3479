-- Steps gained `parent_index` (null at the top level). Steps stored before it have no parent: each gets
-- "parent_index": null as its last field, where normalization now writes it.
UPDATE `traces` SET `steps` = (
  SELECT json_group_array(json_set(`step`.`value`, '$.parent_index', json('null')))
  FROM json_each(`traces`.`steps`) AS `step`
) WHERE `steps` <> '[]';
