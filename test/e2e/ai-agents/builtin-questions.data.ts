import { PRODUCTS, displayPrice } from './builtin-catalogue.data';

/**
 * The built-in agent's question set (issue 13): what customers really write. Each case names the
 * products the answer must be about (`items`, all of them; `only`: and nothing else), products it
 * must not mention (`not`), a handoff, text the reply must (not) contain, or the photo it must send.
 */
export interface QuestionCase {
  readonly q: string;
  readonly items?: string[];
  readonly only?: boolean;
  readonly not?: string[];
  readonly handoff?: boolean;
  readonly says?: string[];
  readonly saysNot?: string[];
  readonly image?: string;
  readonly history?: { role: 'customer' | 'agent'; text: string }[];
  /** A category question: at least two items, all of this category. */
  readonly category?: string;
  /** What the case checks (for the report). */
  readonly kind: string;
}

const byKey = new Map(PRODUCTS.map((p) => [p.key, p]));
/** "49.90 USD": the price as the agent must quote it. */
export const P = (key: string): string => displayPrice(byKey.get(key)!);

export const QUESTIONS: readonly QuestionCase[] = [
  // Exact and any letter case
  {
    kind: 'case',
    q: 'How much is the Aurora Electric Kettle 1.7L?',
    items: ['kettle'],
    only: true,
    says: [P('kettle')],
  },
  { kind: 'case', q: 'HOW MUCH IS THE AURORA KETTLE', items: ['kettle'], only: true, says: [P('kettle')] },
  { kind: 'case', q: 'how much is the aurora kettle', items: ['kettle'], only: true, says: [P('kettle')] },
  { kind: 'case', q: 'Price of the ESPRESSO MACHINE PRO?', items: ['espresso'], only: true, says: ['1,299.50 USD'] },
  { kind: 'case', q: 'yoga MAT price', items: ['yogamat'], only: true, says: [P('yogamat')] },
  { kind: 'case', q: 'What does the UltraView 4K monitor cost?', items: ['monitor'], only: true, says: ['1,399 USD'] },
  { kind: 'case', q: 'price denim jacket', items: ['jacket'], only: true, says: [P('jacket')] },
  { kind: 'case', q: 'How much for the Leather Wallet?', items: ['wallet'], only: true, says: [P('wallet')] },
  // Missing accents / accents where none are
  { kind: 'accents', q: 'how much are the cafe creme capsules', items: ['capsules'], only: true, says: ['4,50 EUR'] },
  { kind: 'accents', q: 'cafe creme price?', items: ['capsules'], only: true, says: ['4,50 EUR'] },
  { kind: 'accents', q: 'Cuánto cuesta el champu solido?', items: ['shampoo'], only: true, says: [P('shampoo')] },
  { kind: 'accents', q: 'precio del jabon artesanal de oliva', items: ['soap'], only: true, says: [P('soap')] },
  { kind: 'accents', q: 'crema hidratante facial precio', items: ['cream'], only: true, says: [P('cream')] },
  { kind: 'accents', q: 'Do you have Café Crème?', items: ['capsules'], only: true },
  { kind: 'accents', q: 'cuanto vale la sartén?', items: ['skillet'], only: true, says: [P('skillet')] },
  // Plurals
  { kind: 'plural', q: 'Do you sell yoga mats?', items: ['yogamat'], only: true },
  {
    kind: 'plural',
    q: 'how much are your wine glass sets',
    items: ['wineglasses'],
    only: true,
    says: [P('wineglasses')],
  },
  { kind: 'plural', q: 'price of the scented candles', items: ['candle'], only: true, says: [P('candle')] },
  { kind: 'plural', q: 'do you have wireless mice?', items: ['mouse'], not: ['headphones'] },
  { kind: 'plural', q: 'how much are the aviator sunglass', items: ['sunglasses'], only: true },
  { kind: 'plural', q: 'tennis rackets price', items: ['racket'], only: true, says: [P('racket')] },
  { kind: 'plural', q: 'cuanto cuestan las mochilas', items: ['backpack'], only: true, says: [P('backpack')] },
  { kind: 'plural', q: 'precio de las tazas', items: ['mug'], only: true, says: [P('mug')] },
  { kind: 'plural', q: 'leather wallets?', items: ['wallet'], only: true },
  // Typos
  { kind: 'typo', q: 'how much is the kettel', items: ['kettle'], only: true, says: [P('kettle')] },
  { kind: 'typo', q: 'aurora ketle price', items: ['kettle'], only: true, says: [P('kettle')] },
  { kind: 'typo', q: 'price of the expresso machine', items: ['espresso'], only: true, says: ['1,299.50 USD'] },
  { kind: 'typo', q: 'nimbus toster', items: ['toaster'], only: true },
  { kind: 'typo', q: 'how much are the wireles headphnes', items: ['headphones'], only: true, says: [P('headphones')] },
  { kind: 'typo', q: 'mechanical keybord price', items: ['keyboard'], only: true, says: [P('keyboard')] },
  { kind: 'typo', q: 'compact umbrela', items: ['umbrella'], only: true },
  { kind: 'typo', q: 'avaitor sunglases price', items: ['sunglasses'], only: true, says: [P('sunglasses')] },
  { kind: 'typo', q: 'cast iron skilet', items: ['skillet'], only: true },
  { kind: 'typo', q: 'bluetooth speeker', items: ['speaker'], only: true },
  { kind: 'typo', q: 'lavendar candle', items: ['candle'], only: true },
  { kind: 'typo', q: 'how much is the backpak', items: ['backpack'], only: true },
  // Partial names
  { kind: 'partial', q: 'the aurora kettle please', items: ['kettle'], only: true },
  { kind: 'partial', q: 'How much is the Nimbus?', items: ['toaster'], only: true, says: [P('toaster')] },
  { kind: 'partial', q: 'pulse headphones', items: ['headphones'], only: true },
  { kind: 'partial', q: 'the orbit watch', items: ['watch'], only: true },
  { kind: 'partial', q: 'price of the galaxy quest game', items: ['boardgame'], only: true, says: ['from 45 USD'] },
  { kind: 'partial', q: 'sonicclean toothbrush', items: ['toothbrush'], only: true },
  { kind: 'partial', q: 'the merino scarf', items: ['scarf'], only: true },
  { kind: 'partial', q: 'kick scooter price', items: ['scooter'], only: true, says: [P('scooter')] },
  { kind: 'partial', q: 'how much is the stand mixer', items: ['mixer'], only: true, says: [P('mixer')] },
  { kind: 'partial', q: 'wooden puzzle', items: ['puzzle'], only: true, says: ['18.00 USD'] },
  // SKUs
  { kind: 'sku', q: 'AK-170', items: ['kettle'], only: true },
  { kind: 'sku', q: 'price of ak170', items: ['kettle'], only: true, says: [P('kettle')] },
  { kind: 'sku', q: 'em-pro-1 price?', items: ['espresso'], only: true, says: ['1,299.50 USD'] },
  { kind: 'sku', q: 'Is NT-200 in stock?', items: ['toaster'], only: true, says: ['out of stock'] },
  { kind: 'sku', q: 'do you have uv-27-4k', items: ['monitor'], only: true },
  { kind: 'sku', q: 'sku kb-16 price', items: ['kettlebell'], only: true, says: [P('kettlebell')] },
  { kind: 'sku', q: 'I want the TRS-42', items: ['shoes'], only: true },
  { kind: 'sku', q: 'pwh 1 price', items: ['headphones'], only: true, says: [P('headphones')] },
  // Category words
  { kind: 'category', q: 'What coffee products do you have?', items: ['capsules', 'espresso'] },
  { kind: 'category', q: 'do you sell electronics?', category: 'Electronics' },
  { kind: 'category', q: 'what do you have for sports', category: 'Sports' },
  { kind: 'category', q: 'what fashion items do you have?', category: 'Fashion' },
  { kind: 'category', q: 'beauty products?', category: 'Beauty' },
  { kind: 'category', q: 'show me your toys', items: ['puzzle', 'boardgame'] },
  { kind: 'category', q: 'do you have any lamps?', items: ['desklamp', 'floorlamp'], not: ['kettle'] },
  // Two products in one question
  {
    kind: 'two',
    q: 'How much are the Aurora kettle and the Nimbus toaster?',
    items: ['kettle', 'toaster'],
    says: [P('kettle'), P('toaster')],
  },
  {
    kind: 'two',
    q: 'price of the yoga mat and the kettlebell',
    items: ['yogamat', 'kettlebell'],
    not: ['kettle'],
    says: [P('yogamat'), P('kettlebell')],
  },
  { kind: 'two', q: 'do you have the leather wallet and the denim jacket in stock?', items: ['wallet', 'jacket'] },
  { kind: 'two', q: 'cuanto cuestan la tetera y la taza', items: ['teapot', 'mug'], says: [P('teapot'), P('mug')] },
  {
    kind: 'two',
    q: 'I need a wireless mouse and a mechanical keyboard, prices?',
    items: ['mouse', 'keyboard'],
    says: [P('mouse'), P('keyboard')],
  },
  { kind: 'two', q: 'stand mixer + cutting board price', items: ['mixer', 'board'] },
  // Filler words
  {
    kind: 'filler',
    q: 'Hi there! Good morning my friend, could you please tell me how much the yoga mat costs? Thanks a lot!',
    items: ['yogamat'],
    only: true,
    says: [P('yogamat')],
  },
  {
    kind: 'filler',
    q: 'hello, I was wondering if you guys still have the tennis racket in stock right now?',
    items: ['racket'],
    only: true,
    says: ['6 in stock'],
  },
  {
    kind: 'filler',
    q: 'hey so like whats the price on that bluetooth speaker thing',
    items: ['speaker'],
    only: true,
    says: [P('speaker')],
  },
  {
    kind: 'filler',
    q: 'Hola buenas tardes, quisiera saber por favor cuánto cuesta la cafetera italiana, gracias',
    items: ['moka'],
    only: true,
    says: [P('moka')],
  },
  {
    kind: 'filler',
    q: 'ok and the price for the linen duvet cover please?',
    items: ['duvet'],
    only: true,
    says: [P('duvet')],
  },
  {
    kind: 'filler',
    q: 'I am looking for a gift for my mom, how much is the lavender candle?',
    items: ['candle'],
    only: true,
    says: [P('candle')],
  },
  // Words shared with other products
  {
    kind: 'shared',
    q: 'how much is the electric toothbrush',
    items: ['toothbrush'],
    only: true,
    says: [P('toothbrush')],
  },
  { kind: 'shared', q: 'do you have an electric scooter?', not: ['kettle', 'toothbrush'] },
  { kind: 'shared', q: 'price of the electric bike', handoff: true },
  { kind: 'shared', q: 'kettlebell price', items: ['kettlebell'], only: true, says: [P('kettlebell')] },
  { kind: 'shared', q: 'do you have kettlebells?', items: ['kettlebell'], only: true },
  { kind: 'shared', q: 'the 16kg kettlebell', items: ['kettlebell'], only: true },
  { kind: 'shared', q: 'kettle price', items: ['kettle'], only: true, says: [P('kettle')] },
  { kind: 'shared', q: 'desk lamp price', items: ['desklamp'], only: true, says: [P('desklamp')] },
  { kind: 'shared', q: 'floor lamp', items: ['floorlamp'], only: true },
  { kind: 'shared', q: 'coffee grinder price', items: ['grinder'], only: true, says: [P('grinder')] },
  { kind: 'shared', q: 'coffee mug', items: ['mug'], only: true },
  { kind: 'shared', q: 'wireless headphones', items: ['headphones'], only: true },
  { kind: 'shared', q: 'wall clock price', items: ['clock'], only: true, says: [P('clock')] },
  { kind: 'shared', q: 'smart watch', items: ['watch'], only: true },
  { kind: 'shared', q: 'phone case', items: ['phonecase'], only: true },
  { kind: 'shared', q: 'price of the kettle drum', handoff: true },
  // Stock
  { kind: 'stock', q: 'is the nimbus toaster in stock?', items: ['toaster'], only: true, says: ['out of stock'] },
  { kind: 'stock', q: 'Is the Aurora kettle available?', items: ['kettle'], only: true, says: ['12 in stock'] },
  {
    kind: 'stock',
    q: 'do you have the orbit smart watch in stock',
    items: ['watch'],
    only: true,
    says: ['out of stock'],
  },
  { kind: 'stock', q: 'how many dumbbell sets are left?', items: ['dumbbells'], only: true, says: ['out of stock'] },
  {
    kind: 'stock',
    q: 'is the burr grinder in stock?',
    items: ['grinder'],
    only: true,
    saysNot: ['out of stock', 'in stock'],
  },
  { kind: 'stock', q: 'quedan unidades del champú sólido?', items: ['shampoo'], only: true, says: ['agotado'] },
  { kind: 'stock', q: 'water bottle stock?', items: ['bottle'], only: true, saysNot: ['out of stock', 'in stock'] },
  { kind: 'stock', q: 'stock of the ultraview monitor', items: ['monitor'], only: true, says: ['2 in stock'] },
  // Photos
  { kind: 'photo', q: 'can I see a photo of the yoga mat?', items: ['yogamat'], only: true, image: 'yogamat' },
  { kind: 'photo', q: 'send me a picture of the aurora kettle', items: ['kettle'], only: true, image: 'kettle' },
  { kind: 'photo', q: 'foto de la mochila por favor', items: ['backpack'], only: true, image: 'backpack' },
  { kind: 'photo', q: 'what does the arc floor lamp look like?', items: ['floorlamp'], only: true, image: 'floorlamp' },
  { kind: 'photo', q: 'show me the denim jacket', items: ['jacket'], only: true, image: 'jacket' },
  // Description
  {
    kind: 'description',
    q: 'tell me about the stand mixer',
    items: ['mixer'],
    only: true,
    says: ['5 quart steel bowl'],
  },
  {
    kind: 'description',
    q: 'what are the specs of the orbit smart watch?',
    items: ['watch'],
    only: true,
    says: ['GPS'],
  },
  {
    kind: 'description',
    q: 'more info about the cast iron skillet please',
    items: ['skillet'],
    only: true,
    says: ['Pre-seasoned'],
  },
  // Spanish keywords and questions
  { kind: 'spanish', q: '¿Cuánto cuesta la tetera?', items: ['teapot'], only: true, says: [P('teapot')] },
  { kind: 'spanish', q: 'precio de los auriculares', items: ['headphones'], only: true, says: [P('headphones')] },
  { kind: 'spanish', q: 'tienen zapatillas para correr?', items: ['shoes'], only: true },
  { kind: 'spanish', q: 'cuanto cuesta el patinete', items: ['scooter'], only: true, says: [P('scooter')] },
  { kind: 'spanish', q: 'hay stock de la pesa rusa?', items: ['kettlebell'], only: true, says: ['8 en stock'] },
  // Unknown products → handoff
  { kind: 'unknown', q: 'do you sell bicycles?', handoff: true },
  { kind: 'unknown', q: 'how much is the iphone 15 pro', handoff: true },
  { kind: 'unknown', q: 'price of a garden hose', handoff: true },
  { kind: 'unknown', q: 'tienen lavadoras?', handoff: true },
  { kind: 'unknown', q: 'I need a vacuum cleaner', handoff: true },
  { kind: 'unknown', q: 'do you have winter tyres', handoff: true },
  // Handoff keywords always hand off
  { kind: 'keyword', q: 'I want a refund for my aurora kettle', handoff: true },
  { kind: 'keyword', q: 'can I talk to a HUMAN about the yoga mat', handoff: true },
  { kind: 'keyword', q: 'quiero hablar con una persona', handoff: true },
  // Follow-ups use the conversation
  {
    kind: 'followup',
    q: 'how much is it?',
    history: [{ role: 'customer', text: 'do you have the kick scooter?' }],
    items: ['scooter'],
    only: true,
    says: [P('scooter')],
  },
  {
    kind: 'followup',
    q: 'can I see a photo?',
    history: [{ role: 'customer', text: 'tell me about the leather wallet' }],
    items: ['wallet'],
    only: true,
    image: 'wallet',
  },
];

/** The agent's handoff keywords in this set. */
export const HANDOFF_KEYWORDS = ['refund', 'human', 'persona'];
