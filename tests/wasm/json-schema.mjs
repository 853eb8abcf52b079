// A small JSON Schema checker for the keywords our schemas in docs/ use: type, const, required,
// properties, additionalProperties (boolean), items, minItems, maxItems, minimum, maximum,
// exclusiveMinimum, exclusiveMaximum and local $ref ("#/$defs/name"). Returns a list of
// "path: problem" strings (empty when the value conforms). Unknown keywords throw, so a schema
// never silently relies on something this checker ignores.
const KNOWN = new Set([
  '$schema',
  '$id',
  'title',
  'description',
  '$defs',
  'type',
  'const',
  'required',
  'properties',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  '$ref',
]);

function typeOk(type, value) {
  switch (type) {
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    default:
      throw new Error(`unsupported type ${type}`);
  }
}

export function validate(schema, value, root = schema, path = '$', problems = []) {
  for (const key of Object.keys(schema)) if (!KNOWN.has(key)) throw new Error(`unsupported keyword ${key} at ${path}`);
  if (schema.$ref) {
    const m = /^#\/\$defs\/(.+)$/.exec(schema.$ref);
    if (!m || !root.$defs?.[m[1]]) throw new Error(`unresolvable $ref ${schema.$ref}`);
    return validate(root.$defs[m[1]], value, root, path, problems);
  }
  if ('const' in schema && value !== schema.const) problems.push(`${path}: must be ${JSON.stringify(schema.const)}`);
  if (schema.type) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => typeOk(t, value))) {
      problems.push(`${path}: must be ${types.join(' or ')}, got ${JSON.stringify(value)?.slice(0, 40)}`);
      return problems;
    }
  }
  if (typeof value === 'number') {
    if ('minimum' in schema && !(value >= schema.minimum)) problems.push(`${path}: ${value} < ${schema.minimum}`);
    if ('maximum' in schema && !(value <= schema.maximum)) problems.push(`${path}: ${value} > ${schema.maximum}`);
    if ('exclusiveMinimum' in schema && !(value > schema.exclusiveMinimum)) problems.push(`${path}: ${value} ≤ ${schema.exclusiveMinimum}`);
    if ('exclusiveMaximum' in schema && !(value < schema.exclusiveMaximum)) problems.push(`${path}: ${value} ≥ ${schema.exclusiveMaximum}`);
  }
  if (Array.isArray(value)) {
    if ('minItems' in schema && value.length < schema.minItems) problems.push(`${path}: fewer than ${schema.minItems} items`);
    if ('maxItems' in schema && value.length > schema.maxItems) problems.push(`${path}: more than ${schema.maxItems} items`);
    if (schema.items) value.forEach((v, i) => validate(schema.items, v, root, `${path}[${i}]`, problems));
  } else if (value !== null && typeof value === 'object') {
    for (const key of schema.required ?? []) if (!(key in value)) problems.push(`${path}: missing "${key}"`);
    for (const [key, v] of Object.entries(value)) {
      if (schema.properties?.[key]) validate(schema.properties[key], v, root, `${path}.${key}`, problems);
      else if (schema.additionalProperties === false) problems.push(`${path}: unexpected "${key}"`);
    }
  }
  return problems;
}
