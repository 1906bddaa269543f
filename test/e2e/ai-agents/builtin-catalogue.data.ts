/** A shop catalogue of several categories for the built-in agent's question set (issue 13). */
export interface ProductSeed {
  readonly key: string;
  readonly name: string;
  readonly price: number | string | null;
  readonly currency: string | null;
  readonly stock?: number | null;
  readonly sku?: string;
  readonly category: string;
  readonly keywords?: string[];
  readonly description?: string;
  readonly images?: string[];
}

const img = (key: string): string[] => [`https://img.example.com/${key}-1.jpg`, `https://img.example.com/${key}-2.jpg`];

export const PRODUCTS: readonly ProductSeed[] = [
  // Kitchen
  { key: 'kettle', name: 'Aurora Electric Kettle 1.7L', price: 49.9, currency: 'USD', stock: 12, sku: 'AK-170', category: 'Kitchen', keywords: ['hervidor', 'tea'], description: 'Stainless steel kettle with auto shut-off.', images: img('kettle') },
  { key: 'toaster', name: 'Nimbus Toaster 2-Slice', price: 39, currency: 'USD', stock: 0, sku: 'NT-200', category: 'Kitchen', keywords: ['tostadora'], description: 'Two wide slots and seven browning levels.', images: img('toaster') },
  { key: 'capsules', name: 'Café Crème Capsules', price: '4,50', currency: 'EUR', stock: 240, sku: 'CC-10', category: 'Coffee', keywords: ['pods'], description: 'Ten mild coffee capsules.', images: img('capsules') },
  { key: 'espresso', name: 'Espresso Machine Pro', price: 1299.5, currency: 'USD', stock: 3, sku: 'EM-PRO-1', category: 'Coffee', keywords: ['cafetera espresso'], description: 'Twin boiler espresso machine with a steam wand.', images: img('espresso') },
  { key: 'grinder', name: 'Burr Coffee Grinder', price: 89, currency: 'USD', stock: null, sku: 'BG-89', category: 'Coffee', keywords: ['molinillo'], description: 'Conical burrs, 40 grind settings.', images: img('grinder') },
  { key: 'skillet', name: 'Cast Iron Skillet 26cm', price: 35, currency: 'USD', stock: 20, sku: 'CI-26', category: 'Kitchen', keywords: ['sarten', 'pan'], description: 'Pre-seasoned cast iron pan.', images: img('skillet') },
  { key: 'knife', name: 'Chef Knife 8"', price: 59, currency: 'USD', stock: 7, sku: 'CK-8', category: 'Kitchen', keywords: ['cuchillo'], description: 'German steel chef knife.', images: [] },
  { key: 'board', name: 'Bamboo Cutting Board', price: 19.99, currency: 'USD', stock: 30, sku: 'BB-01', category: 'Kitchen', keywords: ['tabla'], description: 'Large bamboo board with juice groove.', images: img('board') },
  { key: 'mixer', name: 'Stand Mixer 5Qt', price: 249, currency: 'USD', stock: 4, sku: 'SM-5', category: 'Kitchen', keywords: ['batidora'], description: 'Tilt-head mixer with a 5 quart steel bowl and ten speeds.', images: img('mixer') },
  { key: 'teapot', name: 'Glass Teapot', price: 24, currency: 'USD', stock: 9, sku: 'GT-1', category: 'Kitchen', keywords: ['tetera'], description: 'Borosilicate glass teapot with infuser.', images: img('teapot') },
  { key: 'mug', name: 'Ceramic Coffee Mug', price: 12, currency: 'USD', stock: 50, sku: 'MUG-12', category: 'Coffee', keywords: ['taza', 'cup'], description: '350 ml stoneware mug.', images: img('mug') },
  { key: 'wineglasses', name: 'Wine Glasses Set of 4', price: 29, currency: 'USD', stock: 15, sku: 'WG-4', category: 'Kitchen', keywords: ['copas'], description: 'Crystal wine glasses.', images: img('wineglasses') },
  { key: 'moka', name: 'Cafetera Italiana', price: 29, currency: 'EUR', stock: 6, sku: 'CI-MOKA', category: 'Coffee', keywords: ['moka pot'], description: 'Cafetera de aluminio para 6 tazas.', images: img('moka') },
  // Sports
  { key: 'kettlebell', name: 'Iron Kettlebell 16kg', price: 45, currency: 'USD', stock: 8, sku: 'KB-16', category: 'Sports', keywords: ['pesa rusa'], description: 'Cast iron kettlebell.', images: img('kettlebell') },
  { key: 'yogamat', name: 'Yoga Mat', price: 25, currency: 'USD', stock: 40, sku: 'YM-1', category: 'Sports', keywords: ['esterilla'], description: 'Non-slip 6 mm mat.', images: img('yogamat') },
  { key: 'scooter', name: 'Kick Scooter', price: 110, currency: 'USD', stock: 5, sku: 'KS-1', category: 'Sports', keywords: ['patinete'], description: 'Foldable aluminium kick scooter.', images: img('scooter') },
  { key: 'shoes', name: 'Trail Running Shoes', price: 120, currency: 'USD', stock: 11, sku: 'TRS-42', category: 'Sports', keywords: ['zapatillas', 'sneakers'], description: 'Grippy trail shoes.', images: img('shoes') },
  { key: 'racket', name: 'Tennis Racket', price: 89, currency: 'USD', stock: 6, sku: 'TR-300', category: 'Sports', keywords: ['raqueta'], description: 'Graphite racket, 300 g.', images: img('racket') },
  { key: 'football', name: 'Match Football Size 5', price: 30, currency: 'USD', stock: 25, sku: 'FB-5', category: 'Sports', keywords: ['balon', 'soccer ball'], description: 'FIFA quality match ball.', images: img('football') },
  { key: 'dumbbells', name: 'Adjustable Dumbbell Set', price: 99, currency: 'USD', stock: 0, sku: 'DB-20', category: 'Sports', keywords: ['mancuernas', 'weights'], description: 'Two dumbbells adjustable to 20 kg.', images: img('dumbbells') },
  { key: 'bottle', name: 'Insulated Water Bottle', price: 22, currency: 'USD', stock: null, sku: 'WB-750', category: 'Sports', keywords: ['botella'], description: 'Keeps drinks cold for 24 hours.', images: img('bottle') },
  // Electronics
  { key: 'headphones', name: 'Pulse Wireless Headphones', price: 149, currency: 'USD', stock: 14, sku: 'PWH-1', category: 'Electronics', keywords: ['auriculares', 'headset'], description: 'Noise cancelling over-ear headphones, 30 h battery.', images: img('headphones') },
  { key: 'speaker', name: 'Boom Bluetooth Speaker', price: 79, currency: 'USD', stock: 10, sku: 'BBS-2', category: 'Electronics', keywords: ['altavoz'], description: 'Waterproof portable speaker.', images: img('speaker') },
  { key: 'watch', name: 'Orbit Smart Watch', price: 199, currency: 'USD', stock: 0, sku: 'OSW-3', category: 'Electronics', keywords: ['reloj', 'smartwatch'], description: 'Heart rate, GPS and 7-day battery.', images: img('watch') },
  { key: 'charger', name: 'USB-C Charger 65W', price: 35, currency: 'USD', stock: 60, sku: 'UC-65', category: 'Electronics', keywords: ['cargador'], description: 'GaN charger for laptops and phones.', images: img('charger') },
  { key: 'phonecase', name: 'Clear Phone Case', price: 15, currency: 'USD', stock: 100, sku: 'PC-CLR', category: 'Electronics', keywords: ['funda'], description: 'Shock-absorbing clear case.', images: img('phonecase') },
  { key: 'laptopstand', name: 'Aluminium Laptop Stand', price: 45, currency: 'USD', stock: 18, sku: 'LS-AL', category: 'Electronics', keywords: ['soporte'], description: 'Raises your screen to eye level.', images: img('laptopstand') },
  { key: 'keyboard', name: 'Mechanical Keyboard', price: 129, currency: 'USD', stock: 9, sku: 'MK-87', category: 'Electronics', keywords: ['teclado'], description: 'Hot-swappable switches, RGB.', images: img('keyboard') },
  { key: 'mouse', name: 'Wireless Mouse', price: 39, currency: 'USD', stock: 22, sku: 'WM-2', category: 'Electronics', keywords: ['raton'], description: 'Silent clicks, 2.4 GHz.', images: img('mouse') },
  { key: 'monitor', name: 'UltraView 4K Monitor 27"', price: 1399, currency: 'USD', stock: 2, sku: 'UV-27-4K', category: 'Electronics', keywords: ['pantalla', 'screen'], description: '27 inch IPS 4K display.', images: img('monitor') },
  { key: 'toothbrush', name: 'SonicClean Electric Toothbrush', price: 69, currency: 'USD', stock: 13, sku: 'SC-ET', category: 'Beauty', keywords: ['cepillo de dientes'], description: 'Sonic toothbrush with two heads.', images: img('toothbrush') },
  // Home
  { key: 'duvet', name: 'Linen Duvet Cover', price: 89, currency: 'USD', stock: 7, sku: 'LDC-Q', category: 'Home', keywords: ['funda nordica'], description: 'Stonewashed linen, queen size.', images: img('duvet') },
  { key: 'candle', name: 'Lavender Scented Candle', price: 18, currency: 'USD', stock: 35, sku: 'LSC-1', category: 'Home', keywords: ['vela'], description: 'Soy wax, 40 hour burn.', images: img('candle') },
  { key: 'desklamp', name: 'LED Desk Lamp', price: 42, currency: 'USD', stock: 16, sku: 'LDL-1', category: 'Home', keywords: ['lampara escritorio'], description: 'Dimmable LED lamp with USB port.', images: img('desklamp') },
  { key: 'floorlamp', name: 'Arc Floor Lamp', price: 120, currency: 'USD', stock: 3, sku: 'AFL-1', category: 'Home', keywords: ['lampara de pie'], description: 'Arched floor lamp with marble base.', images: img('floorlamp') },
  { key: 'pillow', name: 'Velvet Throw Pillow', price: 25, currency: 'USD', stock: 28, sku: 'VTP-1', category: 'Home', keywords: ['cojin', 'cushion'], description: 'Soft velvet, 45 x 45 cm.', images: img('pillow') },
  { key: 'clock', name: 'Minimal Wall Clock', price: 30, currency: 'USD', stock: 12, sku: 'MWC-1', category: 'Home', keywords: ['reloj de pared'], description: 'Silent sweep movement.', images: img('clock') },
  // Beauty
  { key: 'cream', name: 'Crema Hidratante Facial', price: 15, currency: 'EUR', stock: 40, sku: 'CHF-50', category: 'Beauty', keywords: ['moisturizer', 'face cream'], description: 'Crema ligera con ácido hialurónico.', images: img('cream') },
  { key: 'soap', name: 'Jabón Artesanal de Oliva', price: 6, currency: 'EUR', stock: 70, sku: 'JAO-1', category: 'Beauty', keywords: ['olive soap'], description: 'Jabón hecho a mano con aceite de oliva.', images: img('soap') },
  { key: 'shampoo', name: 'Champú Sólido', price: 9, currency: 'EUR', stock: 0, sku: 'CS-1', category: 'Beauty', keywords: ['shampoo bar'], description: 'Champú sólido sin plásticos.', images: img('shampoo') },
  // Fashion
  { key: 'wallet', name: 'Leather Wallet', price: 55, currency: 'USD', stock: 19, sku: 'LW-1', category: 'Fashion', keywords: ['cartera', 'billetera'], description: 'Full-grain leather, 8 card slots.', images: img('wallet') },
  { key: 'scarf', name: 'Merino Wool Scarf', price: 35, currency: 'USD', stock: 21, sku: 'MWS-1', category: 'Fashion', keywords: ['bufanda'], description: 'Soft merino wool.', images: img('scarf') },
  { key: 'jacket', name: 'Denim Jacket', price: 89, currency: 'USD', stock: 8, sku: 'DJ-M', category: 'Fashion', keywords: ['chaqueta vaquera'], description: 'Classic blue denim.', images: img('jacket') },
  { key: 'sunglasses', name: 'Aviator Sunglasses', price: 120, currency: 'USD', stock: 10, sku: 'AVS-1', category: 'Fashion', keywords: ['gafas de sol'], description: 'Polarised lenses, metal frame.', images: img('sunglasses') },
  { key: 'backpack', name: 'Urban Backpack 20L', price: 75, currency: 'USD', stock: 14, sku: 'UB-20', category: 'Fashion', keywords: ['mochila'], description: 'Water-resistant, laptop sleeve.', images: img('backpack') },
  { key: 'umbrella', name: 'Compact Umbrella', price: 20, currency: 'USD', stock: 45, sku: 'CU-1', category: 'Fashion', keywords: ['paraguas'], description: 'Windproof, fits in a bag.', images: img('umbrella') },
  // Toys
  { key: 'puzzle', name: 'Wooden Puzzle 500 pieces', price: '18.00', currency: 'USD', stock: 9, sku: 'WP-500', category: 'Toys', keywords: ['rompecabezas'], description: 'Laser-cut wooden jigsaw.', images: img('puzzle') },
  { key: 'boardgame', name: 'Galaxy Quest Board Game', price: 'from 45', currency: 'USD', stock: null, sku: 'GQ-BG', category: 'Toys', keywords: ['juego de mesa'], description: 'Space strategy game for 2-5 players.', images: img('boardgame') },
];

/** How the agent shows a price: SPEC §2 display (thousands separators; a string as sent) and currency. */
export function displayPrice(p: ProductSeed): string {
  let shown: string;
  if (typeof p.price === 'string') shown = p.price;
  else if (p.price === null) return '';
  else if (Number.isInteger(p.price)) shown = p.price.toLocaleString('en-US');
  else shown = p.price.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 20 });
  return p.currency ? `${shown} ${p.currency}` : shown;
}
